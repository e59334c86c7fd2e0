// Selections in the report: a program-order range moves the "peak" (and the buffers at it) to the highest
// point inside the range; a time window limits the runtime analysis to that stretch of the capture. The
// expected figures are read here straight from the curve and the capture's tables.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/analysis/report/report.h"
#include "core/capture/reader.h"

namespace oomscope::analysis {
namespace {

const std::string kConv = std::string(OOMSCOPE_TEST_DATA) + "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb";

TEST(ReportRange, ProgramOrderRangeMovesThePeakAndItsBuffers) {
  const auto capture = capture::read_capture(kConv);
  const HostReport whole = build_host_report(*capture, {});
  ASSERT_TRUE(whole.plan);
  const MemoryCurve& curve = whole.plan->curve;
  ASSERT_GT(whole.plan->peak_event_index, 0);
  ReportOptions options;
  options.plan_range = std::pair<std::int64_t, std::int64_t>(0, whole.plan->peak_event_index - 1);
  const HostReport ranged = build_host_report(*capture, options);
  ASSERT_TRUE(ranged.plan);
  std::int64_t best = 0;
  for (std::int64_t i = 0; i < whole.plan->peak_event_index; ++i)
    if (curve.heap_bytes[std::size_t(i)] > curve.heap_bytes[std::size_t(best)]) best = i;
  EXPECT_EQ(ranged.plan->peak_event_index, best);
  EXPECT_EQ(ranged.plan->peak_bytes, curve.total_at(std::size_t(best)));
  EXPECT_LT(ranged.plan->peak_bytes, whole.plan->peak_bytes);
  std::int64_t listed = 0;
  for (const PlanBuffer& b : ranged.plan->live_at_peak) listed += b.size_bytes;
  EXPECT_EQ(listed, ranged.plan->peak_bytes);
  EXPECT_LT(ranged.plan->live_at_peak.size(), whole.plan->live_at_peak.size());
  EXPECT_EQ(ranged.plan->curve.size(), curve.size());  // the curve itself stays whole
}

TEST(ReportRange, TimeWindowLimitsTheRuntime) {
  const auto capture = capture::read_capture(kConv);
  const HostReport whole = build_host_report(*capture, {});
  ASSERT_TRUE(whole.runtime.module);
  const auto& ex = whole.runtime.module->executions;
  ASSERT_EQ(ex.size(), 5u);
  ReportOptions options;
  options.module = "15";
  options.time_window = std::pair(ex[1].start_ps - 1, ex[2].end_ps + 1);
  const HostReport ranged = build_host_report(*capture, options);
  ASSERT_TRUE(ranged.runtime.module);
  EXPECT_EQ(ranged.runtime.module->executions.size(), 2u);
  for (const AllocatorRuntime& a : ranged.runtime.allocators) {
    std::int64_t peak = -1, count = 0;
    for (const capture::MemoryEvent& m : capture->memory_events())
      if (m.allocator == a.index && m.time_ps >= options.time_window->first &&
          m.time_ps <= options.time_window->second) {
        peak = std::max(peak, m.bytes_in_use);
        ++count;
      }
    EXPECT_EQ(a.allocations + a.deallocations, count) << a.name;
    if (count > 0) {
      EXPECT_EQ(a.peak_bytes_in_use, peak) << a.name;
    }
  }
}

}  // namespace
}  // namespace oomscope::analysis
