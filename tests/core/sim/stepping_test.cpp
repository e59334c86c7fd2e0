// Stepping forwards and backwards: the GUI walks the recursion tree both ways, and stepping back must
// restore the run exactly (log, queue, counters), across batch boundaries too.

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::event_line;
using testing::trace_text;

SimConfig busy_config() {
  // Batches OOM, some scenes need spatial splits, scene 3 has a bug that is split to the floor, and
  // fragmentation carries from one attempt to the next. Two epochs, so the walk crosses epoch boundaries.
  SimConfig c = testing::sized_config(
      {3000, 5200, 2500, 4100, 6000, 1800, 3600, 2900, 7000, 2200, 4800, 3300}, 3, 5000);
  c.epochs = 2;
  c.memory.fragmentation_penalty = 600;
  c.fault = Fault{BugKind::ShapeMismatch, 3};
  return c;
}

struct Snapshot {
  Totals totals;
  std::vector<std::string> events;
  std::vector<PendingFragment> pending;
  std::int64_t fragmented;
  std::int64_t steps;
};

Snapshot snap(const Simulator& sim) {
  Snapshot s{sim.totals(), {}, sim.pending(), sim.memory().fragmented, sim.steps_taken()};
  for (const Event& e : sim.log().events) s.events.push_back(event_line(sim.log(), e));
  return s;
}

void expect_same(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.totals, b.totals);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.fragmented, b.fragmented);
  EXPECT_EQ(a.steps, b.steps);
  ASSERT_EQ(a.pending.size(), b.pending.size());
  for (std::size_t i = 0; i < a.pending.size(); ++i) {
    EXPECT_EQ(a.pending[i].parent, b.pending[i].parent);
    EXPECT_EQ(a.pending[i].points, b.pending[i].points);
    EXPECT_EQ(a.pending[i].first_scene, b.pending[i].first_scene);
    EXPECT_EQ(a.pending[i].split_on_x, b.pending[i].split_on_x);
  }
}

TEST(Stepping, ForwardNThenBackNRestoresTheInitialState) {
  Simulator sim(busy_config());
  const Snapshot initial = snap(sim);
  std::int64_t n = 0;
  while (sim.step()) ++n;
  ASSERT_GT(sim.totals().batches, 4) << "the walk must cross batch boundaries";
  ASSERT_GT(sim.totals().bug_attempts, 0);
  ASSERT_EQ(n, sim.steps_taken());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_TRUE(sim.step_back()) << "step " << i;
  EXPECT_FALSE(sim.step_back());
  expect_same(snap(sim), initial);
  EXPECT_EQ(sim.totals(), Totals{});
  EXPECT_TRUE(sim.log().events.empty());
  EXPECT_TRUE(sim.log().scene_ids.empty());
  EXPECT_TRUE(sim.last_step_events().empty());
}

TEST(Stepping, EveryIntermediateStateIsRestoredExactly) {
  Simulator sim(busy_config());
  std::vector<Snapshot> states{snap(sim)};
  while (sim.step()) states.push_back(snap(sim));
  for (std::size_t i = states.size() - 1; i > 0; --i) {
    ASSERT_TRUE(sim.step_back());
    expect_same(snap(sim), states[i - 1]);
    if (::testing::Test::HasFailure()) FAIL() << "state after step " << i - 1 << " differs";
  }
}

TEST(Stepping, FragmentationLeftAtABatchBoundaryIsRestored) {
  // Each batch is one scene that OOMs and whose halves are dropped: the next batch starts fragmented.
  SimConfig c = testing::sized_config({1000, 1000, 1000}, 1, 999);
  c.policy.split = SplitPoint::Median;
  c.memory.fragmentation_penalty = 300;
  Simulator sim(c);
  ASSERT_TRUE(sim.step());
  ASSERT_EQ(sim.memory().fragmented, 300);
  const Snapshot after_first = snap(sim);
  ASSERT_TRUE(sim.step());
  EXPECT_EQ(sim.log().events.back().available, 699) << "the second batch starts fragmented";
  ASSERT_TRUE(sim.step_back());
  expect_same(snap(sim), after_first);
  ASSERT_TRUE(sim.step_back());
  EXPECT_EQ(sim.memory().fragmented, 0);
}

TEST(Stepping, BackThenForwardAgainGivesTheSameRun) {
  Simulator a(busy_config());
  a.run_to_end();
  Simulator b(busy_config());
  b.run(40);
  for (int i = 0; i < 25; ++i) b.step_back();
  b.run(7);
  for (int i = 0; i < 3; ++i) b.step_back();
  b.run_to_end();
  EXPECT_EQ(trace_text(a), trace_text(b));
}

TEST(Stepping, StepBackFromACrashResumes) {
  SimConfig c = busy_config();
  c.policy.catch_mode = CatchMode::OomOnly;
  Simulator sim(c);
  sim.run_to_end();
  ASSERT_TRUE(sim.crashed());
  const std::int64_t steps = sim.steps_taken();
  ASSERT_TRUE(sim.step_back());
  EXPECT_FALSE(sim.crashed());
  EXPECT_FALSE(sim.finished());
  EXPECT_EQ(sim.totals().crashes, 0);
  EXPECT_TRUE(sim.step());
  EXPECT_TRUE(sim.crashed());
  EXPECT_EQ(sim.steps_taken(), steps);
}

TEST(Stepping, LastStepEventsHoldTheAttemptAndItsDroppedHalves) {
  SimConfig c = testing::sized_config({1000}, 1, 999);
  c.policy.floor = 500;
  c.policy.split = SplitPoint::Median;
  Simulator sim(c);
  ASSERT_TRUE(sim.step());
  const auto events = sim.last_step_events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].outcome, Outcome::Oom);
  EXPECT_EQ(events[1].outcome, Outcome::Dropped);
  EXPECT_EQ(events[2].outcome, Outcome::Dropped);
  EXPECT_TRUE(sim.finished());
}

TEST(Stepping, RunAndResetAndCounts) {
  Simulator sim(busy_config());
  EXPECT_EQ(sim.batch_count(), 8);
  EXPECT_EQ(sim.run(5), 5);
  EXPECT_EQ(sim.steps_taken(), 5);
  sim.reset();
  EXPECT_EQ(sim.steps_taken(), 0);
  EXPECT_EQ(sim.totals(), Totals{});
  sim.run_to_end();
  EXPECT_EQ(sim.totals().optimizer_steps, 8);
  EXPECT_EQ(sim.totals().epochs_done, 2);
  EXPECT_EQ(sim.run(10), 0);
}

TEST(Stepping, RunToEndHonoursTheStopToken) {
  SimConfig c;
  c.scenes.count = 200'000;
  c.batch = 16;
  c.memory.budget = 6LL << 30;
  Simulator sim(c);
  std::stop_source stop;
  stop.request_stop();
  EXPECT_THROW(sim.run_to_end(stop.get_token()), Cancelled);
  EXPECT_FALSE(sim.finished());
}

}  // namespace
}  // namespace oomscope::sim
