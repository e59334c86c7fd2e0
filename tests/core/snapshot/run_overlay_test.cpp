// Two runs on one axis: alignment by ProfilerStep#N markers, by time, by trace entry; downsampled series
// that keep each run's peak exactly; the real cs336 fp32/bf16 pair.
#include "core/snapshot/run_overlay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/snapshot/snapshot_reader.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

// A run of `steps` steps from t0 (µs): each step allocates `bytes` at +10 and frees it at +60, the step
// markers at +0 of each 100 µs step (numbered from first_step).
Snapshot steps_run(std::int64_t t0, int steps, std::int64_t bytes, int first_step, bool markers = true) {
  Snapshot s;
  s.path = "run.pickle";
  s.frame_lists = {{}};  // [0]: no frames
  s.device_traces.resize(1);
  std::uint64_t addr = 0x1000;
  for (int i = 0; i < steps; ++i) {
    const std::int64_t t = t0 + 100 * i;
    if (markers) {
      s.annotations.push_back({"ProfilerStep#" + std::to_string(first_step + i), "START", 0, t});
      s.annotations.push_back({"ProfilerStep#" + std::to_string(first_step + i), "END", 0, t + 99});
    }
    s.device_traces[0].push_back({addr, bytes * (i + 1), t + 10, 0, 0, Action::Alloc});
    s.device_traces[0].push_back({addr, bytes * (i + 1), t + 60, 0, 0, Action::FreeCompleted});
    addr += 0x100000;
  }
  return s;
}

TEST(RunOverlay, AlignsOnTheFirstStepBothCarry) {
  const Snapshot a = steps_run(1000, 4, MiB, 1);
  const Snapshot b = steps_run(50000, 4, 2 * MiB, 3);  // steps 3..6 start at 50000 + 100 k
  const RunOverlay o = overlay_runs(a, analyse_snapshot(a), b, analyse_snapshot(b));
  EXPECT_EQ(o.axis, OverlayAxis::Step);
  EXPECT_EQ(o.aligned_step, 3);
  // A's step 3 starts 200 µs after A's first entry (1010); B's step 3 at -10 µs from B's first entry.
  EXPECT_DOUBLE_EQ(o.b_offset, (1200.0 - 1010.0) - (50000.0 - 50010.0));
  ASSERT_EQ(o.a.steps.size(), 4u);
  EXPECT_EQ(o.a.steps[2].step, 3);
  EXPECT_NE(o.why.find("ProfilerStep#3"), std::string::npos);
  EXPECT_EQ(o.a.peak_bytes, 4 * MiB);
  EXPECT_EQ(o.b.peak_bytes, 8 * MiB);
  EXPECT_DOUBLE_EQ(o.b.peak_x, 300.0);  // B's last alloc: 50310 - 50010
}

TEST(RunOverlay, WithoutCommonStepsAlignsByTimeAndSaysWhy) {
  const Snapshot a = steps_run(1000, 3, MiB, 1);
  const Snapshot b = steps_run(9000, 3, MiB, 10);
  const RunOverlay o = overlay_runs(a, analyse_snapshot(a), b, analyse_snapshot(b));
  EXPECT_EQ(o.axis, OverlayAxis::Time);
  EXPECT_DOUBLE_EQ(o.b_offset, 0.0);
  EXPECT_NE(o.why.find("no ProfilerStep#N marker in common"), std::string::npos);
  const Snapshot c = steps_run(1000, 3, MiB, 1, false);
  const RunOverlay p = overlay_runs(c, analyse_snapshot(c), c, analyse_snapshot(c));
  EXPECT_NE(p.why.find("neither run carries"), std::string::npos);
}

TEST(RunOverlay, TraceWithoutTimesAlignsByEntry) {
  Snapshot a = steps_run(1000, 3, MiB, 1);
  for (auto& e : a.device_traces[0]) e.time_us = -1;
  const RunOverlay o = overlay_runs(a, analyse_snapshot(a), a, analyse_snapshot(a));
  EXPECT_EQ(o.axis, OverlayAxis::Entry);
  EXPECT_DOUBLE_EQ(o.a.peak_x, 4.0);  // the third alloc is raw entry 4
}

TEST(RunOverlay, MarkersThatAreNotStepNumbersAreIgnored) {
  Snapshot a = steps_run(1000, 2, MiB, 1);
  a.annotations.push_back({"ProfilerStep#x", "START", 0, 1050});
  a.annotations.push_back({"ProfilerStep#", "START", 0, 1060});
  a.annotations.push_back({"ProfilerStep#4", "START", 1, 1070});  // another device
  EXPECT_EQ(step_markers(a, 0).size(), 2u);
}

TEST(RunOverlay, Cs336PairKeepsBothPeaksExactlyInFewPoints) {
  const std::string dir = OOMSCOPE_TEST_DATA;
  const auto a = read_snapshot(dir + "/torch_snapshot_cs336_fp32_ctx128.pickle");
  const auto b = read_snapshot(dir + "/torch_snapshot_cs336_bf16_ctx128.pickle");
  const SnapshotReport ra = analyse_snapshot(*a), rb = analyse_snapshot(*b);
  const RunOverlay o = overlay_runs(*a, ra, *b, rb, 200);
  EXPECT_EQ(o.axis, OverlayAxis::Time);  // the pair carries only Optimizer.zero_grad markers
  EXPECT_NE(o.why.find("neither run carries"), std::string::npos);
  for (const OverlayRun* r : {&o.a, &o.b}) {
    EXPECT_LE(r->series.size(), 201u);
    const auto top =
        std::max_element(r->series.begin(), r->series.end(),
                         [](const OverlayPoint& x, const OverlayPoint& y) { return x.bytes < y.bytes; });
    ASSERT_NE(top, r->series.end());
    EXPECT_EQ(top->bytes, r->peak_bytes);
    EXPECT_DOUBLE_EQ(top->x, r->peak_x);
    EXPECT_TRUE(std::is_sorted(r->series.begin(), r->series.end(),
                               [](const OverlayPoint& x, const OverlayPoint& y) { return x.x < y.x; }));
  }
  EXPECT_EQ(o.a.peak_bytes, 556843008);  // tests/data/tools/snapshot_peak_sites.py
  EXPECT_EQ(o.b.peak_bytes, 779837440);
}

}  // namespace
}  // namespace oomscope::snapshot
