#include "core/analysis/runtime/runtime_allocators.h"

#include <gtest/gtest.h>

#include "runtime_test_events.h"

namespace oomscope::analysis {
namespace {

using testing::MemoryScript;

const std::vector<std::string> kNames{"GPU_0_bfc", "xla_gpu_host_bfc"};

TEST(RuntimeAllocators, PairsAllocationsAndFreesByAddress) {
  MemoryScript s(1000, {500, 0});  // 500 bytes held before the capture
  s.alloc(10, 0xA, 100).alloc(20, 0xB, 200).free(30, 0xA, 100).free(40, 0xC, 50).alloc(50, 0xD, 10, 0, 1);
  const auto out = analyze_allocators(s.events(), kNames);
  ASSERT_EQ(out.size(), 2u);
  const AllocatorRuntime& a = out[0];
  EXPECT_EQ(a.allocations, 2);
  EXPECT_EQ(a.deallocations, 2);
  EXPECT_EQ(a.paired, 1);
  EXPECT_EQ(a.unmatched_frees, 1);  // 0xC was allocated before the capture
  EXPECT_EQ(a.unmatched_free_bytes, 50);
  EXPECT_EQ(a.live_at_end, 1);  // 0xB
  EXPECT_EQ(a.live_at_end_bytes, 200);
  EXPECT_EQ(a.bytes_in_use_at_start, 500);
  EXPECT_EQ(a.bytes_in_use_at_end, 650);
  EXPECT_EQ(a.peak_bytes_in_use, 800);
  EXPECT_EQ(a.peak_time_ps, 20);
  EXPECT_EQ(a.capacity_bytes, 1000);
  EXPECT_EQ(out[1].allocations, 1);
  EXPECT_EQ(out[1].live_at_end_bytes, 10);
}

TEST(RuntimeAllocators, CountsAnAllocationAtALiveAddressAsALostFree) {
  MemoryScript s;
  s.alloc(1, 0xA, 100).alloc(2, 0xA, 100);
  const auto out = analyze_allocators(s.events(), kNames);
  EXPECT_EQ(out[0].reused_without_free, 1);
  EXPECT_EQ(out[0].live_at_end, 1);
}

TEST(RuntimeAllocators, BytesInUseBeforeATime) {
  MemoryScript s(1000, {300, 0});
  s.alloc(10, 1, 100).alloc(15, 9, 7, 0, 1).free(20, 1, 100);
  EXPECT_EQ(bytes_in_use_before(s.events(), 0, 5), 300);   // derived back from the first event
  EXPECT_EQ(bytes_in_use_before(s.events(), 0, 10), 300);  // the event at t is not applied yet
  EXPECT_EQ(bytes_in_use_before(s.events(), 0, 11), 400);
  EXPECT_EQ(bytes_in_use_before(s.events(), 0, 16), 400);  // another allocator's event in between
  EXPECT_EQ(bytes_in_use_before(s.events(), 0, 99), 300);
  EXPECT_EQ(bytes_in_use_before(s.events(), 1, 99), 7);
}

TEST(RuntimeAllocators, LiveAllocationsBeforeATime) {
  MemoryScript s;
  s.alloc(10, 1, 100).alloc(20, 2, 200).free(30, 1, 100).alloc(40, 3, 300);
  EXPECT_EQ(live_allocations_before(s.events(), 0, 35), (std::vector<std::size_t>{1}));
  EXPECT_EQ(live_allocations_before(s.events(), 0, 41), (std::vector<std::size_t>{1, 3}));
  EXPECT_TRUE(live_allocations_before(s.events(), 0, 10).empty());
}

TEST(RuntimeAllocators, ReservedSeriesFromTheEventsThatCarryTheStat) {
  MemoryScript s(1000);
  s.alloc(10, 1, 100).alloc(20, 2, 100).free(30, 1, 100).alloc(40, 3, 10, 0, 1);
  std::vector<capture::MemoryEvent> events = s.events();
  events[0].bytes_reserved = 64;
  events[1].bytes_reserved = 256;  // the peak of the reserved series
  events[2].bytes_reserved = -1;   // no bytes_reserved stat on this event
  events[3].bytes_reserved = -1;   // none on any event of the second allocator
  const auto out = analyze_allocators(events, kNames);
  EXPECT_EQ(out[0].reserved_events, 2);
  EXPECT_EQ(out[0].peak_bytes_reserved, 256);
  EXPECT_EQ(out[0].peak_reserved_time_ps, 20);
  EXPECT_EQ(out[0].reserved_series, (std::vector<ReservedSeriesPoint>{{10, 64}, {20, 256}}));
  EXPECT_EQ(out[0].capacity_bytes, 1000 + 256);  // in use + available + reserved, the largest seen
  EXPECT_EQ(out[1].reserved_events, 0);          // the capture carries no reserved figure for it
  EXPECT_TRUE(out[1].reserved_series.empty());
  EXPECT_EQ(out[1].capacity_bytes, 1000);  // a missing stat adds nothing
}

TEST(RuntimeAllocators, DownsampledSeriesKeepsThePeak) {
  MemoryScript s(1 << 30);
  for (int i = 0; i < 5000; ++i) s.alloc(i * 10, static_cast<std::uint64_t>(i), i == 3333 ? 1000000 : 1);
  for (int i = 0; i < 5000; ++i)
    s.free(50000 + i * 10, static_cast<std::uint64_t>(i), i == 3333 ? 1000000 : 1);
  const auto out = analyze_allocators(s.events(), kNames, 100);
  ASSERT_LE(out[0].series.size(), 100u);
  ASSERT_GE(out[0].series.size(), 4u);
  std::int64_t max = 0;
  for (const auto& p : out[0].series) max = std::max(max, p.bytes_in_use);
  EXPECT_EQ(max, out[0].peak_bytes_in_use);
  EXPECT_EQ(out[0].series.front().time_ps, 0);
  EXPECT_EQ(out[0].series.back().time_ps, 50000 + 4999 * 10);
}

}  // namespace
}  // namespace oomscope::analysis
