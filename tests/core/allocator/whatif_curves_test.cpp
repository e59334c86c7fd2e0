// The What-if panel's curves (core/allocator/whatif_curves.h): the recorded curve read from the trace agrees
// with the validated replay under the recorded settings after every alloc and free, on the real snapshots;
// the replayed curve's highest point is the replay's peak; downsampling keeps every peak and ends where a
// replay stopped.

#include "core/allocator/whatif_curves.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/allocator/whatif.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::allocator {
namespace {

std::uint64_t max_reserved(const std::vector<CurvePoint>& c) {
  std::uint64_t top = 0;
  for (const CurvePoint& p : c) top = std::max(top, p.reserved);
  return top;
}

std::uint64_t max_allocated(const std::vector<CurvePoint>& c) {
  std::uint64_t top = 0;
  for (const CurvePoint& p : c) top = std::max(top, p.allocated);
  return top;
}

std::uint64_t max_requested(const std::vector<CurvePoint>& c) {
  std::uint64_t top = 0;
  for (const CurvePoint& p : c) top = std::max(top, p.requested);
  return top;
}

// The figures in force after entry `index` of a step curve.
CurvePoint at(const std::vector<CurvePoint>& c, std::int64_t index) {
  CurvePoint cur = c.front();
  for (const CurvePoint& p : c) {
    if (p.index > index) break;
    cur = p;
  }
  return cur;
}

class RealCurves : public ::testing::TestWithParam<const char*> {};

TEST_P(RealCurves, RecordedCurveIsTheValidatedReplaysCurve) {
  const auto snap = snapshot::read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + GetParam());
  WhatIfOptions o;
  o.one_scenario = true;
  o.keep_curves = true;
  o.settings = {"expandable_segments:True"};
  NullProgress none;
  const WhatIfResult w = run_whatif(*snap, o, none);
  ASSERT_TRUE(w.validated());
  const ReplayResult& rec = w.recorded.result;
  ASSERT_FALSE(rec.curve.empty());
  EXPECT_EQ(rec.curve.front().index, -1);
  const std::vector<CurvePoint> read = recorded_curve(*snap, w.device, rec.curve.front());
  // After every entry: reserved from the recording's segment events equals the model's (the validation
  // matched), and the bytes requested from the recording's allocs and frees equal the model's.
  // The recording logs a segment event before the alloc that caused it (and a release entry by entry),
  // the model as one step of that alloc: compare after every entry that is not a segment event.
  const auto& trace = snap->device_traces[static_cast<std::size_t>(w.device)];
  for (std::int64_t i = -1; i < static_cast<std::int64_t>(w.trace_entries); ++i) {
    if (i >= 0) {
      const snapshot::Action a = trace[static_cast<std::size_t>(i)].action;
      if (a == snapshot::Action::SegmentAlloc || a == snapshot::Action::SegmentFree ||
          a == snapshot::Action::SegmentMap || a == snapshot::Action::SegmentUnmap)
        continue;
    }
    const CurvePoint a = at(read, i), b = at(rec.curve, i);
    ASSERT_EQ(a.reserved, b.reserved) << "entry " << i;
    ASSERT_EQ(a.requested, b.requested) << "entry " << i;
  }
  EXPECT_EQ(max_reserved(read), rec.peak_reserved);
  EXPECT_EQ(max_allocated(rec.curve), rec.peak_allocated);
  EXPECT_EQ(max_requested(rec.curve), rec.peak_requested);
  const ReplayResult& r = w.scenarios.front().result;
  EXPECT_EQ(max_reserved(r.curve), r.peak_reserved);
  // Downsampled to a few points, the peaks stay.
  const auto last = static_cast<std::int64_t>(w.trace_entries) - 1;
  const std::vector<CurvePoint> small = downsample_curve(read, last, -1, last, 16);
  EXPECT_LE(small.size(), 16u);
  EXPECT_EQ(max_reserved(small), rec.peak_reserved);
  EXPECT_EQ(max_requested(small), max_requested(read));
  EXPECT_EQ(small.front().index, -1);
}

INSTANTIATE_TEST_SUITE_P(Snapshots, RealCurves,
                         ::testing::Values("torch_snapshot_decomfl_windows_with_trace.pickle",
                                           "torch_snapshot_cs336_bf16_ctx128.pickle",
                                           "torch_snapshot_cs336_small_peak.pickle"));

TEST(DownsampleCurve, KeepsEachBucketsHighestAndStopsWhereTheCurveEnds) {
  // A step curve: 10 before the trace, 50 at entry 3 only, 20 from entry 4, 5 from entry 90.
  const std::vector<CurvePoint> c{{-1, 10, 1, 1}, {3, 50, 2, 2}, {4, 20, 7, 6}, {90, 5, 3, 3}};
  const std::vector<CurvePoint> all = downsample_curve(c, 99, -1, 99, 1000);
  ASSERT_EQ(all.size(), 101u);  // one point per entry when the buckets outnumber them
  EXPECT_EQ(at(all, 2).reserved, 10u);
  EXPECT_EQ(at(all, 3).reserved, 50u);
  EXPECT_EQ(at(all, 50).reserved, 20u);
  EXPECT_EQ(at(all, 99).reserved, 5u);
  const std::vector<CurvePoint> two = downsample_curve(c, 99, -1, 99, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].reserved, 50u);  // [-1, 48]: the one-entry spike survives
  EXPECT_EQ(two[0].allocated, 7u);
  EXPECT_EQ(two[0].requested, 6u);
  EXPECT_EQ(two[1].reserved, 20u);  // [49, 99]: 20 in force at its start, then 5
  EXPECT_EQ(two[1].index, 49);
  // A replay that stopped at entry 10 (its OOM) covers no later bucket.
  const std::vector<CurvePoint> cut = downsample_curve(c, 10, -1, 99, 1000);
  ASSERT_FALSE(cut.empty());
  EXPECT_EQ(cut.back().index, 10);
  EXPECT_TRUE(downsample_curve({}, 10, -1, 99, 10).empty());
  EXPECT_TRUE(downsample_curve(c, 99, 50, 40, 10).empty());
}

}  // namespace
}  // namespace oomscope::allocator
