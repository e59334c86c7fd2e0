// Two recordings compared (core/live/client/recording_diff.h) in the cases the fixtures of
// tests/cli/test_recording_diff.py do not reach: ranks matched by index when a hello gives no rank, runs
// that cannot be aligned by step (no step counter, no step in common), the agents' peak_allocated taking
// the peak, and a rank in one run only. The figures are the arithmetic that wrote the samples.

#include "core/live/client/recording_diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/live/client/recorder.h"

namespace oomscope::live {
namespace {

constexpr std::int64_t kGiB = 1ll << 30, kMiB = 1ll << 20;
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kTick = 100'000'000;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("oomscope-recdiff-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

struct RunPlan {
  int ranks = 2;
  bool hello_ranks = true;
  bool steps = true;
  std::int64_t first_step = 0;
  int count = 10;
  std::int64_t growth = 0;                 // bytes a step, on every rank
  std::optional<std::int64_t> agent_peak;  // peak_allocated sent with the last sample
};

RunPlan grown() {  // 12 steps, every rank 64 MiB more a step
  RunPlan p;
  p.count = 12;
  p.growth = 64 * kMiB;
  return p;
}
RunPlan no_hello_no_steps() {
  RunPlan p;
  p.hello_ranks = false;
  p.steps = false;
  return p;
}
RunPlan three_ranks_from(std::int64_t step) {
  RunPlan p;
  p.ranks = 3;
  p.first_step = step;
  return p;
}
RunPlan with_agent_peak(std::int64_t bytes) {
  RunPlan p;
  p.agent_peak = bytes;
  return p;
}
RunPlan from_step(std::int64_t step) {
  RunPlan p;
  p.first_step = step;
  return p;
}

std::int64_t allocated(int r, int i, const RunPlan& run) {
  return 2 * kGiB + r * 128 * kMiB + i * run.growth;
}

std::string write(const std::string& name, const RunPlan& run) {
  const std::string path = temp_path(name);
  Recorder rec(path);
  for (int r = 0; r < run.ranks; ++r) {
    Hello h;
    if (run.hello_ranks) h.rank = r;
    h.host = "node0";
    h.total_bytes = 8 * kGiB;
    rec.on_endpoint(r, "127.0.0.1:" + std::to_string(7000 + r));
    rec.on_hello(r, h);
  }
  for (int i = 0; i < run.count; ++i)
    for (int r = 0; r < run.ranks; ++r) {
      Sample s;
      s.t = kT0 + i * kTick + r;
      if (run.steps) s.set(Field::Step, run.first_step + i);
      s.set(Field::Allocated, allocated(r, i, run));
      s.set(Field::Reserved, allocated(r, i, run) + kGiB);
      if (run.agent_peak && i == run.count - 1) s.set(Field::PeakAllocated, *run.agent_peak);
      rec.on_sample(r, s);
    }
  rec.close();
  return path;
}

TEST(RecordingDiff, AlignedByStepWithTheLargestChange) {
  const std::string a = write("a", RunPlan{}), b = write("b", grown());
  const RecordingDiff d = diff_recordings(a, b);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  EXPECT_EQ(d.matched_by, "hello rank");
  ASSERT_EQ(d.ranks.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    const RecordingRankDiff& x = d.ranks[static_cast<std::size_t>(r)];
    ASSERT_TRUE(x.a && x.b);
    EXPECT_EQ(x.a->peak_allocated, allocated(r, 0, RunPlan{}));
    EXPECT_EQ(x.b->peak_allocated, allocated(r, 11, grown()));
    EXPECT_EQ(x.steps_a.steps(), 10u);
    EXPECT_EQ(x.steps_b.steps(), 12u);
    EXPECT_EQ(x.steps_a.step_at_peak_allocated, 0);  // every step holds the same: the first sample
    EXPECT_EQ(x.steps_b.step_at_peak_allocated, 11);
    ASSERT_TRUE(x.aligned) << x.not_aligned;
    EXPECT_EQ(x.aligned->common_steps, 10);
    EXPECT_EQ(x.aligned->last_step, 9);
    ASSERT_TRUE(x.aligned->largest_change_step);
    EXPECT_EQ(*x.aligned->largest_change_step, 9);  // B grows, A does not: the last common step
    EXPECT_EQ(x.aligned->b_allocated - x.aligned->a_allocated, 9 * 64 * kMiB);
  }
  EXPECT_EQ(d.cannot_tell.size(), 2u);
}

TEST(RecordingDiff, MatchedByIndexWithoutHelloRanksAndNotAligned) {
  const std::string a = write("a2", no_hello_no_steps());
  const std::string b = write("b2", three_ranks_from(100));
  const RecordingDiff d = diff_recordings(a, b);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  EXPECT_EQ(d.matched_by, "recording index");
  EXPECT_FALSE(d.matched_by_reason.empty());
  ASSERT_EQ(d.ranks.size(), 3u);
  EXPECT_FALSE(d.ranks[0].aligned);
  EXPECT_EQ(d.ranks[0].not_aligned, "A's samples carry no step");
  EXPECT_FALSE(d.ranks[2].a);
  EXPECT_EQ(d.ranks[2].not_aligned, "the rank is in B only");
}

TEST(RecordingDiff, NoStepInCommonAndTheAgentsPeak) {
  const std::string a = write("a3", with_agent_peak(5 * kGiB));
  const std::string b = write("b3", from_step(50));
  const RecordingDiff d = diff_recordings(a, b);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  ASSERT_EQ(d.ranks.size(), 2u);
  EXPECT_FALSE(d.ranks[0].aligned);
  EXPECT_EQ(d.ranks[0].not_aligned, "the runs sampled no step in common (A steps 0 to 9, B steps 50 to 59)");
  EXPECT_EQ(d.ranks[0].a->peak_allocated, 5 * kGiB);  // the agent's peak_allocated, at the last sample
  EXPECT_EQ(d.ranks[0].steps_a.step_at_peak_allocated, 9);
  EXPECT_EQ(d.ranks[0].steps_b.first_step, 50);
}

}  // namespace
}  // namespace oomscope::live
