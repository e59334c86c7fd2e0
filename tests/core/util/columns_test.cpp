#include "core/util/columns.h"

#include <gtest/gtest.h>

namespace oomscope {
namespace {

TEST(Columns, PadRightFillsToTheWidthAndKeepsALongerTextWhole) {
  EXPECT_EQ(pad_right("ab", 5), "ab   ");
  EXPECT_EQ(pad_right("abcde", 5), "abcde");
  EXPECT_EQ(pad_right("jit_train_step(123)", 6), "jit_train_step(123)");
  EXPECT_EQ(pad_right("", 2), "  ");
}

}  // namespace
}  // namespace oomscope
