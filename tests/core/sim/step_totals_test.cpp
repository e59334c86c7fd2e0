// Totals derived from an event log alone (what a trace file gives the Simulator page) are the simulator's
// own after every step, for both gradient modes, across batch and epoch boundaries, with a bug that is
// split to the floor and with a bug that crashes the run.

#include "core/sim/step_totals.h"

#include <gtest/gtest.h>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

SimConfig busy_config(GradMode grad) {
  SimConfig c = testing::sized_config(
      {3000, 5200, 2500, 4100, 6000, 1800, 3600, 2900, 7000, 2200, 4800, 3300}, 3, 5000);
  c.epochs = 2;
  c.memory.fragmentation_penalty = 600;
  c.fault = Fault{BugKind::ShapeMismatch, 3};
  c.policy.grad = grad;
  return c;
}

// Steps `c` to the end; compares the derived totals with the simulator's after each step. Returns the
// simulator's last totals.
Totals expect_derived_equal_simulated(const SimConfig& c) {
  Simulator simulator(c);
  std::vector<Totals> simulated{Totals{}};
  std::vector<std::uint32_t> step_end{0};
  while (simulator.step()) {
    simulated.push_back(simulator.totals());
    step_end.push_back(static_cast<std::uint32_t>(simulator.log().events.size()));
  }
  EXPECT_GT(simulated.size(), 2u);
  EXPECT_EQ(step_boundaries(simulator.log()), step_end);
  const std::vector<Totals> derived = step_totals(simulator.log(), step_end, c.policy.grad, &c.time);
  EXPECT_EQ(derived.size(), simulated.size());
  if (derived.size() != simulated.size()) return simulated.back();
  for (std::size_t s = 0; s < derived.size(); ++s) {
    SCOPED_TRACE("after step " + std::to_string(s));
    const Totals& d = derived[s];
    const Totals& t = simulated[s];
    EXPECT_EQ(d.batches, t.batches);
    EXPECT_EQ(d.optimizer_steps, t.optimizer_steps);
    EXPECT_EQ(d.scenes, t.scenes);
    EXPECT_EQ(d.points, t.points);
    EXPECT_EQ(d.attempts, t.attempts);
    EXPECT_EQ(d.ok_attempts, t.ok_attempts);
    EXPECT_EQ(d.oom_attempts, t.oom_attempts);
    EXPECT_EQ(d.bug_attempts, t.bug_attempts);
    EXPECT_EQ(d.retries, t.retries);
    EXPECT_EQ(d.wasted_forward_passes, t.wasted_forward_passes);
    EXPECT_EQ(d.discarded_gradients, t.discarded_gradients);
    EXPECT_EQ(d.dropped_fragments, t.dropped_fragments);
    EXPECT_EQ(d.points_dropped, t.points_dropped);
    EXPECT_EQ(d.scenes_dropped, t.scenes_dropped);
    EXPECT_EQ(d.scenes_partially_dropped, t.scenes_partially_dropped);
    EXPECT_EQ(d.points_trained, t.points_trained);
    EXPECT_EQ(d.points_applied, t.points_applied);
    EXPECT_EQ(d.scenes_applied, t.scenes_applied);
    EXPECT_EQ(d.points_spatial, t.points_spatial);
    EXPECT_EQ(d.empty_cache_calls, t.empty_cache_calls);
    EXPECT_EQ(d.renormalised_steps, t.renormalised_steps);
    EXPECT_EQ(d.crashes, t.crashes);
    // Not crash_scene: the log names the crashed fragment's scenes, not which of them has the bug (the
    // derivation says the first; a trace's final totals line says the right one).
    EXPECT_EQ(d.crash_event, t.crash_event);
    EXPECT_EQ(d.time_ns, t.time_ns);
    EXPECT_EQ(d.oom_free_time_ns, t.oom_free_time_ns);
    EXPECT_EQ(d.ok_bytes_sum, t.ok_bytes_sum);
    EXPECT_EQ(d.peak_ok_bytes, t.peak_ok_bytes);
  }
  return simulated.back();
}

TEST(StepTotals, AccumulateMatchesTheSimulator) {
  expect_derived_equal_simulated(busy_config(GradMode::Accumulate));
}

TEST(StepTotals, LastFragmentMatchesTheSimulator) {
  expect_derived_equal_simulated(busy_config(GradMode::LastFragment));
}

TEST(StepTotals, CrashMatchesTheSimulator) {
  SimConfig c = default_config();
  c.fault = {BugKind::ShapeMismatch, 9};
  c.policy.catch_mode = CatchMode::OomOnly;  // the bug is not caught: the run crashes on scene 9
  EXPECT_EQ(expect_derived_equal_simulated(c).crashes, 1);
}

TEST(StepTotals, WithoutAGradModeNothingIsApplied) {
  const SimConfig c = busy_config(GradMode::Accumulate);
  Simulator simulator(c);
  simulator.run_to_end();
  const auto ends = step_boundaries(simulator.log());
  const auto derived = step_totals(simulator.log(), ends, std::nullopt, nullptr);
  EXPECT_EQ(derived.back().points_applied, 0);
  EXPECT_EQ(derived.back().oom_free_time_ns, 0);
  EXPECT_EQ(derived.back().optimizer_steps, simulator.totals().optimizer_steps);
}

}  // namespace
}  // namespace oomscope::sim
