// The unit rules of each framework (docs/logs.md "Units") and the prefixes taken off log lines.

#include <gtest/gtest.h>

#include <cmath>

#include "core/log/detail/line_clean.h"
#include "core/log/detail/scan.h"

namespace oomscope::log::detail {
namespace {

std::int64_t bytes_of(std::string_view text, SizeRule rule = SizeRule::Rounded) {
  const auto f = read_size(text, "x", rule);
  return f ? f->value : -1;
}

TEST(LogSizes, EverySpellingIsBinary) {
  EXPECT_EQ(bytes_of("0 bytes"), 0);
  EXPECT_EQ(bytes_of("1000 bytes"), 1000);
  EXPECT_EQ(bytes_of("2.00 MiB"), 2 << 20);
  EXPECT_EQ(bytes_of("16.00 GiB"), 16LL << 30);
  // PyTorch's MPS allocator divides by 2^30 and 2^20 and writes GB and MB (MPSAllocator.mm format_size).
  EXPECT_EQ(bytes_of("18.13 GB"), std::llround(18.13 * (1LL << 30)));
  EXPECT_EQ(bytes_of("4.50 MB"), static_cast<std::int64_t>(4.5 * (1 << 20)));
  EXPECT_EQ(bytes_of("512.00 KB"), 512 * 1024);
  // XLA and TPU: tsl's HumanReadableNumBytes, with and without "iB".
  EXPECT_EQ(bytes_of("48.5KiB"), 49664);
  EXPECT_EQ(bytes_of("8.00G"), 8LL << 30);
  EXPECT_EQ(bytes_of("64.0K"), 65536);
  EXPECT_EQ(bytes_of("0B"), 0);
  EXPECT_EQ(bytes_of("-2.55G"), -std::llround(2.55 * (1LL << 30)));
  EXPECT_EQ(bytes_of("6,532,939,776 bytes"), 6532939776LL);
  // Not sizes: a word that starts like a unit, a number alone.
  EXPECT_EQ(bytes_of("12 GPUs"), -1);
  EXPECT_EQ(bytes_of("12"), -1);
  EXPECT_EQ(bytes_of("Buffer"), -1);
}

TEST(LogSizes, ErrorIsHalfTheLastDigitOrOneUnitWhenFloored) {
  const auto rounded = read_size("1.78 GiB", "r");
  ASSERT_TRUE(rounded);
  EXPECT_FALSE(rounded->exact);
  EXPECT_EQ(rounded->error, std::llround(0.005 * (1LL << 30)));
  EXPECT_EQ(rounded->printed, "1.78 GiB");
  const auto exact = read_size("6291456 bytes", "e");
  ASSERT_TRUE(exact);
  EXPECT_TRUE(exact->exact);
  EXPECT_EQ(exact->error, 0);
  // memory_summary floors: 14935 MiB means at least 14935 MiB and less than 14936 MiB.
  const auto floored = read_size("14935 MiB", "f", SizeRule::Floored);
  ASSERT_TRUE(floored);
  EXPECT_EQ(floored->value, 14935LL << 20);
  EXPECT_EQ(floored->error, 1 << 20);
}

TEST(LogSizes, HugeOrOverflowingNumbersAreRefused) {
  EXPECT_EQ(bytes_of("99999999999999999999999 GiB"), -1);
  EXPECT_EQ(bytes_of("130674.00 GiB"), 130674LL << 30);  // large but a size: a bug's request
}

std::string text_of(std::string_view raw, std::string* source = nullptr) {
  CleanLine c;
  clean_line(raw, c);
  if (source) *source = c.source;
  return c.text;
}

TEST(LogPrefixes, LaunchersAndLoggersAreTakenOff) {
  std::string src;
  EXPECT_EQ(text_of("[rank3]: torch.OutOfMemoryError: CUDA out of memory.", &src),
            " torch.OutOfMemoryError: CUDA out of memory.");  // indentation after a prefix is kept
  EXPECT_EQ(src, "rank 3");
  EXPECT_EQ(text_of("[default1]:RuntimeError: x", &src), "RuntimeError: x");
  EXPECT_EQ(src, "rank 1");
  EXPECT_EQ(text_of("71\x1b[2m\x1b[36m(MeshHostWorker pid=489)\x1b[0m BufferAssignment stats:", &src),
            " BufferAssignment stats:");
  EXPECT_EQ(src, "MeshHostWorker pid 489");
  // The same with the ESC bytes lost, as in xla-gpu_alpa_759.log.
  EXPECT_EQ(text_of("71[2m[36m(MeshHostWorker pid=489)[0m      Size: 3.83GiB", &src), "      Size: 3.83GiB");
  EXPECT_EQ(text_of("(pid=12, ip=10.0.0.1) hello", &src), " hello");
  EXPECT_EQ(src, "pid 12");
  EXPECT_EQ(text_of("I0309 12:51:51.372677 140 bfc_allocator.cc:1010] Stats:"), "Stats:");
  EXPECT_EQ(
      text_of("2019-03-11 09:52:43.509896: I tensorflow/core/common_runtime/bfc_allocator.cc:641] 1 Chunks"),
      "1 Chunks");
  EXPECT_EQ(text_of("W tensorflow/core/common_runtime/bfc_allocator.cc:217] Ran out"), "Ran out");
  EXPECT_EQ(text_of("2025-11-14T08:52:38.3746210Z FAILED"), "FAILED");
  EXPECT_EQ(text_of("INFO 04-27 10:13:05 llm_engine.py:275] # GPU blocks: 0"), "GPU blocks: 0");
  EXPECT_EQ(text_of("2024-04-27 10:13:05 | ERROR | stderr | Traceback"), "Traceback");
  EXPECT_EQ(text_of("ERROR:tensorflow:Error recorded"), "Error recorded");
  EXPECT_EQ(text_of("ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed", &src),
            " include/alloc.h:185 NCCL WARN Failed");
  EXPECT_EQ(src, "ng30903 pid 3063028");
  EXPECT_EQ(text_of(" # 0 bytes free;"), "0 bytes free;");
}

TEST(LogPrefixes, ControlBytesAndColourCodesGo) {
  EXPECT_EQ(text_of(std::string_view("a\rb\0c", 5)), "abc");
  EXPECT_EQ(text_of("\x1b]0;title\x07text"), "text");
  EXPECT_EQ(text_of("\x1b[1;31mred\x1b[0m"), "red");
  // Brackets that are not colour codes stay.
  EXPECT_EQ(text_of("f32[4096,128,3]"), "f32[4096,128,3]");
  EXPECT_EQ(text_of("[rank]: not a rank"), "[rank]: not a rank");
}

}  // namespace
}  // namespace oomscope::log::detail
