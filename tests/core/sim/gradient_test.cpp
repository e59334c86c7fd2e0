// Defect 2: zero_grad() per fragment means only the last fragment's gradient reaches optimizer.step().

#include <gtest/gtest.h>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::sized_config;

SimConfig split_config(GradMode grad) {
  // The batch OOMs (14,000 > 4,500); 5,000 needs a spatial split, the rest fit alone.
  SimConfig c = sized_config({4000, 3000, 5000, 2000}, 4, 4500);
  c.policy = preset_original();
  c.policy.grad = grad;
  return c;
}

TEST(Gradient, LastFragmentAppliesOnlyTheLastFragment) {
  Simulator sim(split_config(GradMode::LastFragment));
  sim.run_to_end();
  const Totals& t = sim.totals();
  ASSERT_GT(t.retries, 0);
  EXPECT_EQ(t.points_dropped, 0);
  std::int64_t last_ok = 0;
  for (const Event& e : sim.log().events)
    if (e.outcome == Outcome::Ok) last_ok = e.points;
  EXPECT_EQ(t.points_applied, last_ok);
  EXPECT_LT(t.applied_point_fraction(), 1.0);
  EXPECT_EQ(t.scenes_applied, 1);
  EXPECT_EQ(t.discarded_gradients, t.ok_attempts - 1);
}

TEST(Gradient, AccumulateAppliesEverythingNotDropped) {
  Simulator sim(split_config(GradMode::Accumulate));
  sim.run_to_end();
  const Totals& t = sim.totals();
  ASSERT_GT(t.retries, 0);
  EXPECT_EQ(t.points_applied, t.points);
  EXPECT_DOUBLE_EQ(t.applied_point_fraction(), 1.0);
  EXPECT_EQ(t.scenes_applied, 4);
  EXPECT_EQ(t.discarded_gradients, 0);
}

TEST(Gradient, AccumulateWithDropsAppliesExactlyWhatWasNotDropped) {
  SimConfig c = split_config(GradMode::Accumulate);
  c.fault = Fault{BugKind::ShapeMismatch, 1};
  c.policy.catch_mode = CatchMode::Everything;
  Simulator sim(c);
  sim.run_to_end();
  const Totals& t = sim.totals();
  ASSERT_GT(t.points_dropped, 0);
  EXPECT_EQ(t.points_applied, t.points - t.points_dropped);
  EXPECT_EQ(t.scenes_applied, 3);
}

TEST(Gradient, WithoutSplitsBothModesApplyTheWholeBatch) {
  for (auto grad : {GradMode::LastFragment, GradMode::Accumulate}) {
    SimConfig c = split_config(grad);
    c.memory.budget = 1'000'000;
    Simulator sim(c);
    sim.run_to_end();
    EXPECT_EQ(sim.totals().attempts, 1);
    EXPECT_EQ(sim.totals().points_applied, sim.totals().points);
  }
}

}  // namespace
}  // namespace oomscope::sim
