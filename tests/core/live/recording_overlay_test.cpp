// Two recordings on one axis (core/live/client/recording_overlay.h): by step when both carry steps, by
// time otherwise, B shifted; every bucket's maximum kept; the gap per rank; a non-recording B refused.

#include "core/live/client/recording_overlay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/live/client/recorder.h"
#include "core/util/error.h"
#include "tests/core/live/recorded_job.h"

namespace oomscope::live {
namespace {

using namespace testjob;

struct Recorded {
  explicit Recorded(const Job& job, const std::string& name) : path(temp_path(name)) {
    Recorder rec(path);
    play(rec, job);
    rec.close();
  }
  ~Recorded() { std::filesystem::remove(path); }
  std::string path;
};

std::int64_t max_of(const std::vector<OverlayPoint>& line) {
  std::int64_t m = 0;
  for (const OverlayPoint& p : line) m = std::max(m, p.bytes);
  return m;
}

TEST(RecordingOverlay, TwoRunsWithStepsAlignByStepAndShiftB) {
  const Job before{};  // rank 3 leaks and runs out
  const Job after{.steps = 30, .leak = 100 * kMiB, .ooms = false, .start = kT0 + 3'600'000'000'000};
  const Recorded a(before, "a.oomlive"), b(after, "b.oomlive");
  const OverlayRun ra = read_overlay_run(a.path), rb = read_overlay_run(b.path);
  const RecordingOverlay o = overlay_recordings(ra, rb, {.rank = kLeaker});
  EXPECT_EQ(o.axis, OverlayAxis::Step);
  EXPECT_NE(o.axis_note.find("aligned by step"), std::string::npos) << o.axis_note;
  ASSERT_EQ(o.a.allocated.size(), 20u);  // one point a step: fewer steps than buckets
  ASSERT_EQ(o.b.allocated.size(), 30u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(o.a.allocated[std::size_t(i)].x, i);
    EXPECT_EQ(o.a.allocated[std::size_t(i)].bytes, allocated(before, kLeaker, i));
    EXPECT_EQ(o.a.reserved[std::size_t(i)].bytes, reserved(before, kLeaker, i));
  }
  EXPECT_EQ(o.b.allocated.back().x, 29);
  EXPECT_EQ(*o.a.peak_allocated, allocated(before, kLeaker, 19));
  EXPECT_EQ(*o.b.peak_allocated, allocated(after, kLeaker, 29));
  EXPECT_EQ(o.x_min, 0);
  EXPECT_EQ(o.x_max, 29);

  const RecordingOverlay shifted = overlay_recordings(ra, rb, {.rank = kLeaker, .shift_b = 5});
  ASSERT_EQ(shifted.b.allocated.size(), 30u);
  EXPECT_EQ(shifted.b.allocated.front().x, 5);
  EXPECT_EQ(shifted.b.allocated.front().bytes, allocated(after, kLeaker, 0));
  EXPECT_EQ(shifted.a.allocated.front().x, 0);  // A never moves
  EXPECT_EQ(shifted.x_max, 34);

  // The gap: every rank of both, rank 3 peaks at 14.0 GiB in A and 7.58 GiB in B, A's two OOMs.
  ASSERT_EQ(o.gap.size(), 4u);
  const OverlayRankGap& g = o.gap[kLeaker];
  EXPECT_EQ(*g.peak_allocated_a, allocated(before, kLeaker, 19));
  EXPECT_EQ(*g.peak_allocated_b, allocated(after, kLeaker, 29));
  EXPECT_EQ(g.ooms_a, 1);
  EXPECT_EQ(g.ooms_b, 0);
  EXPECT_EQ(o.gap[1].ooms_a, 1);
  ASSERT_GE(o.sentences.size(), 4u);
  EXPECT_EQ(o.sentences[0], "A has 2 OOM events (ranks 3, 1), B has no OOM event [read]");
  EXPECT_EQ(o.sentences[1], "A's verdict: " + ra.ranks.verdict.sentences.front());
  EXPECT_EQ(o.sentences[3],
            "the largest change of a rank's peak allocated is rank 3's: 14.0 GiB in A, 7.58 GiB in B "
            "(-6.45 GiB) [derived]");
  EXPECT_NE(o.sites_note.find("not allocation stacks"), std::string::npos);
  EXPECT_NE(o.sites_note.find("/tmp/oom-rank3.pickle"), std::string::npos) << o.sites_note;
}

TEST(RecordingOverlay, WithoutStepsInOneRunTheRunsAlignByTimeSinceTheirFirstSample) {
  const Job before{};
  const Job after{.ooms = false, .with_steps = false, .start = kT0 + 7'000'000'000};
  const Recorded a(before, "ta.oomlive"), b(after, "tb.oomlive");
  const OverlayRun ra = read_overlay_run(a.path), rb = read_overlay_run(b.path);
  const RecordingOverlay o = overlay_recordings(ra, rb, {.rank = 0, .shift_b = 0.5, .buckets = 1000});
  EXPECT_EQ(o.axis, OverlayAxis::Time);
  EXPECT_NE(o.axis_note.find("B's samples carry no step"), std::string::npos) << o.axis_note;
  ASSERT_EQ(o.a.allocated.size(), 20u);
  ASSERT_EQ(o.b.allocated.size(), 20u);
  EXPECT_DOUBLE_EQ(o.a.allocated[1].x, 0.1);       // seconds since A's first sample
  EXPECT_DOUBLE_EQ(o.b.allocated.front().x, 0.5);  // B's first sample, shifted by 0.5 s
  EXPECT_DOUBLE_EQ(o.b.allocated.back().x, 0.5 + 19 * 0.1);
}

TEST(RecordingOverlay, ManySamplesAreCutToTheBucketsWithEveryPeakKept) {
  const Job dense{.steps = 50, .samples_per_step = 40};  // 2000 samples a rank
  const Job other{.steps = 10, .ooms = false};
  const Recorded a(dense, "da.oomlive"), b(other, "db.oomlive");
  const OverlayRun ra = read_overlay_run(a.path), rb = read_overlay_run(b.path);
  // By step the 40 samples of a step fall in one bucket: its largest, the step's last sample.
  const RecordingOverlay by_step = overlay_recordings(ra, rb, {.rank = kLeaker, .buckets = 400});
  ASSERT_EQ(by_step.a.allocated.size(), 50u);
  EXPECT_EQ(by_step.a.allocated[7].bytes, allocated(dense, kLeaker, 7));
  // Fewer buckets than steps: 10 buckets of 5 steps, each the largest of its steps.
  const RecordingOverlay coarse = overlay_recordings(ra, rb, {.rank = kLeaker, .buckets = 10});
  ASSERT_EQ(coarse.a.allocated.size(), 10u);
  EXPECT_EQ(coarse.a.allocated.back().bytes, allocated(dense, kLeaker, 49));
  EXPECT_EQ(max_of(coarse.a.reserved), reserved(dense, kLeaker, 49));
  EXPECT_EQ(*coarse.a.peak_allocated, ra.ranks.ranks[kLeaker].peak_allocated);
}

TEST(RecordingOverlay, ANonRecordingIsRefusedNamingTheFile) {
  const std::string path = temp_path("not-a-recording.pickle");
  std::ofstream(path) << "\x80\x04 not a recording at all";
  try {
    read_overlay_run(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find("not an oomscope live recording"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW(read_overlay_run(path + ".missing"), Error);
}

TEST(RecordingOverlay, ARankNeitherRunHasIsAnError) {
  const Recorded a(Job{}, "ea.oomlive"), b(Job{.ooms = false}, "eb.oomlive");
  const OverlayRun ra = read_overlay_run(a.path), rb = read_overlay_run(b.path);
  EXPECT_THROW(overlay_recordings(ra, rb, {.rank = 9}), Error);
}

}  // namespace
}  // namespace oomscope::live
