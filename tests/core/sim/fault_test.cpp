// Defect 1 of docs/simulator-model.md: a catch-everything handler turns a real bug into silent data loss.

#include <gtest/gtest.h>

#include <algorithm>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::scenes_of;
using testing::sized_config;

constexpr std::int64_t kBugScene = 2;

SimConfig bug_config(CatchMode mode, BugKind kind = BugKind::ShapeMismatch) {
  // Batches of three OOM at 10,000 points; every scene fits alone.
  SimConfig c = sized_config({4000, 3000, 5000, 2000, 6000, 3500}, 3, 10'000);
  c.policy = preset_original();
  c.policy.catch_mode = mode;
  c.fault = Fault{kind, kBugScene};
  return c;
}

bool contains_bug_scene(const EventLog& log, const Event& e) {
  const auto s = scenes_of(log, e);
  return std::find(s.begin(), s.end(), kBugScene) != s.end();
}

TEST(Fault, BugDissolvesSilentlyUnderCatchEverything) {
  Simulator sim(bug_config(CatchMode::Everything));
  sim.run_to_end();
  const Totals& t = sim.totals();
  EXPECT_FALSE(sim.crashed());
  EXPECT_EQ(t.crashes, 0);
  EXPECT_EQ(t.optimizer_steps, 2) << "training carries on as if nothing happened";
  EXPECT_GT(t.bug_attempts, 10) << "the bug is split again and again";
  EXPECT_EQ(t.points_dropped, 5000) << "every point of the buggy scene ends up dropped";
  EXPECT_EQ(t.scenes_dropped, 1);
  std::int64_t trained_bug_points = 0;
  for (const Event& e : sim.log().events) {
    if (!contains_bug_scene(sim.log(), e)) continue;
    EXPECT_TRUE(e.outcome == Outcome::Bug || e.outcome == Outcome::Dropped) << "event " << e.id;
    if (e.outcome == Outcome::Ok) trained_bug_points += e.points;
  }
  EXPECT_EQ(trained_bug_points, 0);
  // The last fragments of the buggy scene are dropped under the floor: no crash, no trace.
  const auto dropped = std::count_if(sim.log().events.begin(), sim.log().events.end(),
                                     [](const Event& e) { return e.outcome == Outcome::Dropped; });
  EXPECT_EQ(dropped, t.dropped_fragments);
  EXPECT_GT(dropped, 0);
}

TEST(Fault, SameBugCrashesLoudlyUnderOomOnly) {
  Simulator sim(bug_config(CatchMode::OomOnly));
  sim.run_to_end();
  ASSERT_TRUE(sim.crashed());
  EXPECT_TRUE(sim.finished());
  EXPECT_FALSE(sim.step());
  const Totals& t = sim.totals();
  EXPECT_EQ(t.crashes, 1);
  EXPECT_EQ(t.crash_scene, kBugScene);
  const Event& last = sim.log().events.back();
  EXPECT_EQ(last.outcome, Outcome::Crash);
  EXPECT_EQ(last.id, t.crash_event);
  EXPECT_TRUE(contains_bug_scene(sim.log(), last));
  EXPECT_EQ(t.points_dropped, 0);
  EXPECT_EQ(t.bug_attempts, 0);
  // No optimizer step for the batch that crashed.
  EXPECT_EQ(t.optimizer_steps, last.batch);
}

TEST(Fault, ShapeMismatchFailsBeforeTheOomAndNanLossAfterIt) {
  for (auto kind : {BugKind::ShapeMismatch, BugKind::NanLoss}) {
    Simulator sim(bug_config(CatchMode::Everything, kind));
    sim.run_to_end();
    for (const Event& e : sim.log().events) {
      if (e.origin != Origin::Batch || !contains_bug_scene(sim.log(), e)) continue;
      // The batch holding the bug needs more than the budget.
      ASSERT_GT(e.bytes_needed, e.available);
      EXPECT_EQ(e.outcome, kind == BugKind::ShapeMismatch ? Outcome::Bug : Outcome::Oom);
    }
  }
}

TEST(Fault, BugKindDecidesWhatTheCrashCosts) {
  // A NaN is only seen after the whole forward pass; a shape mismatch early in it.
  SimConfig shape = bug_config(CatchMode::OomOnly, BugKind::ShapeMismatch);
  shape.memory.budget = 1'000'000;  // nothing OOMs: the bug is the first thing that goes wrong
  SimConfig nan = shape;
  nan.fault.kind = BugKind::NanLoss;
  Simulator a(shape), b(nan);
  a.run_to_end();
  b.run_to_end();
  ASSERT_TRUE(a.crashed() && b.crashed());
  EXPECT_LT(a.log().events.back().duration_ns, b.log().events.back().duration_ns);
}

}  // namespace
}  // namespace oomscope::sim
