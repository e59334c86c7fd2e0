#include "core/util/bytes.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

using oomscope::format_bytes;

TEST(FormatBytes, BinaryUnitsThreeSignificantFigures) {
  EXPECT_EQ(format_bytes(std::int64_t{0}), "0 B");
  EXPECT_EQ(format_bytes(std::int64_t{1023}), "1023 B");
  EXPECT_EQ(format_bytes(std::int64_t{1024}), "1.00 KiB");
  EXPECT_EQ(format_bytes(std::int64_t{3495} * 1024 * 1024), "3.41 GiB");
  EXPECT_EQ(format_bytes(std::int64_t{104} * 1024 * 1024), "104 MiB");
  EXPECT_EQ(format_bytes(std::int64_t{15} * 1024 * 1024 + 512 * 1024), "15.5 MiB");
  EXPECT_EQ(format_bytes(std::int64_t{-2048}), "-2.00 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 40), "1.00 TiB");
}

TEST(FormatBytes, NoUnitJumpAtRounding) {
  // 1023.9 KiB must not print as "1024 KiB".
  EXPECT_EQ(format_bytes(std::int64_t{1024} * 1024 - 100), "1.00 MiB");
}

TEST(FormatBytes, ExactWithSeparators) {
  EXPECT_EQ(oomscope::format_bytes_exact(3495000000), "3,495,000,000");
  EXPECT_EQ(oomscope::format_bytes_exact(12), "12");
  EXPECT_EQ(oomscope::format_bytes_exact(-1234), "-1,234");
  EXPECT_EQ(oomscope::format_bytes_exact(INT64_MIN), "-9,223,372,036,854,775,808");
}

TEST(FormatBytes, ThousandsOfAnyCount) {  // the alerts' and the forecast's counts (steps, restarts)
  EXPECT_EQ(oomscope::format_thousands(0), "0");
  EXPECT_EQ(oomscope::format_thousands(999), "999");
  EXPECT_EQ(oomscope::format_thousands(1000), "1,000");
  EXPECT_EQ(oomscope::format_thousands(-123456), "-123,456");
  EXPECT_EQ(oomscope::format_thousands(INT64_MAX), "9,223,372,036,854,775,807");
  EXPECT_EQ(oomscope::format_thousands(INT64_MIN), "-9,223,372,036,854,775,808");
}

TEST(Error, NamesFileAndProblem) {
  oomscope::Error e(oomscope::ErrorKind::Empty, "/tmp/x.xplane.pb", "the file is empty");
  EXPECT_STREQ(e.what(), "/tmp/x.xplane.pb: the file is empty");
  EXPECT_EQ(e.kind(), oomscope::ErrorKind::Empty);
}
