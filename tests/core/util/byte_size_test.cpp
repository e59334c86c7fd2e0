// The one byte-size grammar (core/util/bytes.h, docs/byte-sizes.md): what it accepts and what it refuses.

#include <gtest/gtest.h>

#include "core/util/bytes.h"

namespace {

using oomscope::parse_byte_size;

std::int64_t ok(std::string_view text) {
  const auto r = parse_byte_size(text);
  EXPECT_TRUE(r) << text << ": " << r.error;
  return r.bytes;
}

std::string refused(std::string_view text) {
  const auto r = parse_byte_size(text);
  EXPECT_FALSE(r) << text << " was accepted as " << r.bytes;
  return r.error;
}

TEST(ParseByteSize, PlainBytesAreExact) {
  EXPECT_EQ(ok("0"), 0);
  EXPECT_EQ(ok("100"), 100);
  EXPECT_EQ(ok("4294967296"), 4294967296LL);
  EXPECT_EQ(ok("9007199254740993"), 9007199254740993LL);  // above 2^53: not rounded through a double
  EXPECT_EQ(ok("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ok("100B"), 100);
  EXPECT_EQ(ok("  100 b "), 100);
}

TEST(ParseByteSize, BinaryAndDecimalUnitsInAnyCase) {
  EXPECT_EQ(ok("4GiB"), 4LL << 30);
  EXPECT_EQ(ok("4gib"), 4LL << 30);  // refused by the simulator's old parser
  EXPECT_EQ(ok("4G"), 4LL << 30);
  EXPECT_EQ(ok("4g"), 4LL << 30);
  EXPECT_EQ(ok("4Gi"), 4LL << 30);
  EXPECT_EQ(ok("4GB"), 4'000'000'000LL);
  EXPECT_EQ(ok("4gb"), 4'000'000'000LL);
  EXPECT_EQ(ok("64 KiB"), 64LL << 10);
  EXPECT_EQ(ok("1k"), 1024);
  EXPECT_EQ(ok("1KB"), 1000);
  EXPECT_EQ(ok("512M"), 512LL << 20);
  EXPECT_EQ(ok("512mib"), 512LL << 20);
  EXPECT_EQ(ok("3MB"), 3'000'000);
  EXPECT_EQ(ok("2TiB"), 2LL << 40);
  EXPECT_EQ(ok("2t"), 2LL << 40);
  EXPECT_EQ(ok("2TB"), 2'000'000'000'000LL);
}

TEST(ParseByteSize, DecimalsAndExponentsRoundToTheNearestByte) {
  EXPECT_EQ(ok("2.5GiB"), 5LL << 29);
  EXPECT_EQ(ok("1.5G"), 3LL << 29);
  EXPECT_EQ(ok(".5KiB"), 512);
  EXPECT_EQ(ok("2.79GiB"), 2'995'739'689LL);  // 2995739688.96
  EXPECT_EQ(ok("4e9"), 4'000'000'000LL);
  EXPECT_EQ(ok("1.5e3KiB"), 1'536'000);
  EXPECT_EQ(ok("1E3"), 1000);
  EXPECT_EQ(ok("0.0KiB"), 0);
}

TEST(ParseByteSize, RefusesWhatIsNotASize) {
  EXPECT_NE(refused("").find("is not a size"), std::string::npos);
  EXPECT_NE(refused("GiB").find("is not a size"), std::string::npos);
  EXPECT_NE(refused("lots").find("'lots'"), std::string::npos);
  refused(".");
  refused("1.2.3G");
  refused("0x10");
  refused("inf");
  refused("nan");
  refused("1e");  // the 'e' is then read as a unit
}

TEST(ParseByteSize, RefusesSigns) {
  EXPECT_NE(refused("-1GiB").find("without a sign"), std::string::npos);
  EXPECT_NE(refused("-0").find("without a sign"), std::string::npos);
  refused("+5");
}

TEST(ParseByteSize, RefusesFractionsOfAByte) {
  EXPECT_NE(refused("1.5").find("fraction of a byte"), std::string::npos);
  refused("1.5B");
  refused("0.5");
  refused("0.0001KiB");  // 0.1 bytes
  refused("1e-3");
}

TEST(ParseByteSize, RefusesOverflow) {
  EXPECT_NE(refused("9223372036854775808").find("too large"), std::string::npos);
  refused(std::string(400, '9'));
  refused("1e400");
  refused("1e19");
  refused("8EiB");  // EiB is not a unit either
  refused("99999999TiB");
  refused("8388608TiB");  // exactly 2^63
  EXPECT_EQ(ok("8388607TiB"), 8388607LL << 40);
}

TEST(ParseByteSize, RefusesUnknownUnits) {
  const std::string e = refused("4 gigs");
  EXPECT_NE(e.find("unknown unit 'gigs'"), std::string::npos);
  EXPECT_NE(e.find("KiB"), std::string::npos);
  EXPECT_EQ(ok("4Gb "), 4'000'000'000LL);  // case-insensitive: Gb is GB, not gigabits
  refused("4PiB");
  refused("4iB");
  refused("4GiBs");
  refused("4 G iB");
}

}  // namespace
