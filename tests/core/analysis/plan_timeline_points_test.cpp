// Peak markers for one frame of the timeline (analysis::peak_markers in
// core/analysis/timeline/plan_timeline.h): every execution in view is represented, however many there are;
// where peaks share a column, the highest.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/analysis/timeline/plan_timeline.h"

namespace oomscope::analysis {
namespace {

// n executions 1000 ps apart, each 600 ps long; the runtime peak of execution i is 100 + i % 7 bytes at
// 300 ps into it, the planned peak 90 bytes at 200 ps.
std::vector<ExecutionTimeline> executions(std::size_t n) {
  std::vector<ExecutionTimeline> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    ExecutionTimeline& x = out[i];
    x.number = int(i) + 1;
    x.start_ps = std::int64_t(i) * 1000;
    x.end_ps = x.start_ps + 600;
    x.planned_peak_bytes = 90;
    x.planned_peak_time_ps = x.start_ps + 200;
    x.allocator = 0;
    x.runtime_peak_bytes = 100 + std::int64_t(i % 7);
    x.runtime_peak_time_ps = x.start_ps + 300;
  }
  return out;
}

TEST(PeakMarkers, OneMarkerPerExecutionWhenTheyFit) {
  const auto ex = executions(10);
  const PeakMarkers m = peak_markers(ex, 0, 10000, 100);  // 100 ps columns: one peak each
  EXPECT_FALSE(m.thinned);
  EXPECT_EQ(m.executions, 10u);
  ASSERT_EQ(m.planned.size(), 10u);
  ASSERT_EQ(m.runtime.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(m.planned[i], (PeakMarker{i, ex[i].planned_peak_time_ps, 90}));
    EXPECT_EQ(m.runtime[i], (PeakMarker{i, ex[i].runtime_peak_time_ps, ex[i].runtime_peak_bytes}));
  }
}

// 20,000 executions in view, far more than the 4,000 markers a frame once drew: the last executions have
// their markers too, and each column's marker is the highest runtime peak of the executions in it.
TEST(PeakMarkers, ManyExecutionsAreThinnedPerColumnNotCutOff) {
  const std::size_t n = 20000, columns = 500;
  const auto ex = executions(n);
  const std::int64_t t0 = 0, t1 = std::int64_t(n) * 1000;
  const PeakMarkers m = peak_markers(ex, t0, t1, columns);
  EXPECT_TRUE(m.thinned);
  EXPECT_EQ(m.executions, n);
  ASSERT_EQ(m.runtime.size(), columns);  // 40 executions per column, every column holds some
  ASSERT_EQ(m.planned.size(), columns);
  EXPECT_GE(m.runtime.back().execution, n - n / columns);  // the last column: the last executions
  const std::int64_t width = (t1 - t0) / std::int64_t(columns);
  for (std::size_t c = 0; c < columns; ++c) {
    std::int64_t highest = -1;
    for (const ExecutionTimeline& x : ex)
      if (x.runtime_peak_time_ps / width == std::int64_t(c))
        highest = std::max(highest, x.runtime_peak_bytes);
    EXPECT_EQ(m.runtime[c].bytes, highest) << "column " << c;
    EXPECT_EQ(m.runtime[c].time_ps / width, std::int64_t(c));
  }
}

TEST(PeakMarkers, OnlyExecutionsInViewAndRuntimeOnlyWithAnAllocator) {
  auto ex = executions(10);
  ex[5].allocator.reset();
  // [3500, 6400]: executions 3 (ends at 3600) to 6 (starts at 6000).
  const PeakMarkers m = peak_markers(ex, 3500, 6400, 1000);
  EXPECT_EQ(m.executions, 4u);
  ASSERT_EQ(m.planned.size(), 4u);
  EXPECT_EQ(m.planned.front().execution, 3u);
  EXPECT_EQ(m.planned.back().execution, 6u);
  ASSERT_EQ(m.runtime.size(), 3u);
  EXPECT_TRUE(
      std::none_of(m.runtime.begin(), m.runtime.end(), [](const PeakMarker& p) { return p.execution == 5; }));
  EXPECT_TRUE(peak_markers(ex, 20000, 30000, 100).planned.empty());
  EXPECT_TRUE(peak_markers(ex, 10, 10, 100).planned.empty());
}

// The block summary changes what a frame costs, not what it shows: the same points as the plain scan, for
// windows and bucket counts where blocks fall inside a bucket, straddle two, or are cut by the window.
TEST(RuntimePoints, SummarizedBlocksGiveTheSamePointsAsEveryEvent) {
  std::vector<capture::MemoryEvent> memory;
  std::uint64_t state = 12345;
  const auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  std::int64_t t = 0;
  for (int i = 0; i < 50000; ++i) {
    capture::MemoryEvent m;
    t += std::int64_t(next() % 3);  // equal times too
    m.time_ps = t;
    m.allocator = next() % 4 == 0 ? 1 : 0;  // another allocator's events in between
    m.bytes_in_use = std::int64_t(next() % 1000) + (i % 9000 == 0 ? 5000 : 0);  // some equal, a few spikes
    memory.push_back(m);
  }
  PlanTimeline plain;
  plain.allocator = 0;
  for (std::size_t i = 0; i < memory.size(); ++i)
    if (memory[i].allocator == 0) plain.allocator_events.push_back(std::uint32_t(i));
  PlanTimeline summarized = plain;
  summarize_allocator_events(summarized, memory);
  ASSERT_EQ(
      summarized.allocator_block_low.size(),
      (plain.allocator_events.size() + PlanTimeline::kAllocatorBlock - 1) / PlanTimeline::kAllocatorBlock);
  for (const auto& [t0, t1] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, t}, {-50, t + 50}, {t / 3, t / 3 + t / 10}, {777, 7777}, {t / 2, t / 2 + 3}})
    for (std::size_t buckets : {1u, 7u, 100u, 900u, 5000u}) {
      const auto a = runtime_points(plain, memory, t0, t1, buckets);
      const auto b = runtime_points(summarized, memory, t0, t1, buckets);
      EXPECT_EQ(a, b) << t0 << ".." << t1 << " in " << buckets << " buckets";
      EXPECT_FALSE(a.empty());
    }
}

}  // namespace
}  // namespace oomscope::analysis
