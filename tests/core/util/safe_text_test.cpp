#include "core/util/safe_text.h"

#include <gtest/gtest.h>

namespace {

using oomscope::single_line_safe;
using oomscope::terminal_safe;
using oomscope::valid_utf8;

TEST(SafeText, ValidTextIsUnchanged) {
  EXPECT_EQ(terminal_safe("jit_train_step(42) \xce\xbc s\n\tdone"), "jit_train_step(42) \xce\xbc s\n\tdone");
  EXPECT_EQ(valid_utf8("GPU_0_bfc \xe2\x80\x94 ok"), "GPU_0_bfc \xe2\x80\x94 ok");
}

TEST(SafeText, TerminalControlsBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_safe("\x1b]0;pwned\x07name"), "\\x1b]0;pwned\\x07name");
  EXPECT_EQ(terminal_safe("a\x1b[2Jb\rc\x7f"), "a\\x1b[2Jb\\x0dc\\x7f");
  EXPECT_EQ(terminal_safe("csi \xc2\x9b"
                          "31m"),
            "csi \\x9b31m");  // C1 CSI as UTF-8
  EXPECT_EQ(terminal_safe("abc\xe2\x80\xae"
                          "cba"),
            "abc\\u{202e}cba");  // right-to-left override
}

TEST(SafeText, InvalidUtf8IsEscapedForTerminalsAndReplacedForJson) {
  EXPECT_EQ(terminal_safe("\xff\xfe\xc0_x"), "\\xff\\xfe\\xc0_x");
  EXPECT_EQ(valid_utf8("\xff\xfe\xc0_x"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd_x");
  EXPECT_EQ(valid_utf8("cut \xe2\x80"), "cut \xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(valid_utf8("overlong \xc0\xaf"), "overlong \xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(valid_utf8("surrogate \xed\xa0\x80"), "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(SafeText, SingleLineEscapesLayoutToo) {
  EXPECT_EQ(single_line_safe("two\nlines\ttab"), "two\\x0alines\\x09tab");
}

}  // namespace
