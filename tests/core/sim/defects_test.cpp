// The defects a review of the simulator found, one test each (issue 10): the last-fragment gradient when a
// batch's last attempt fails, fragmentation that empty_cache() never relieved, numbers out of range,
// scientific notation in a sizes file, the loss scales of `accumulate`, the `runtime-error` catch mode,
// --on-floor and the BatchNorm counters.

#include <gtest/gtest.h>

#include "core/sim/scene.h"
#include "core/sim/sizes_file.h"
#include "core/sim/trace_json.h"
#include "core/util/error.h"
#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::sized_config;

// The batch OOMs (7,000 > 4,500); both scenes fit alone; a bug in scene 1, caught by `everything`, is
// bisected to the floor, so the batch's last attempt is a failed one.
SimConfig last_attempt_fails(GradMode grad) {
  SimConfig c = sized_config({4000, 3000}, 2, 4500);
  c.policy = preset_original();
  c.policy.grad = grad;
  c.fault = Fault{BugKind::ShapeMismatch, 1};
  return c;
}

TEST(Defects, LastFragmentGivesNothingWhenTheBatchsLastAttemptFails) {
  Simulator sim(last_attempt_fails(GradMode::LastFragment));
  sim.run_to_end();
  const Totals& t = sim.totals();
  const Event* last_attempt = nullptr;
  for (const Event& e : sim.log().events)
    if (e.outcome != Outcome::Dropped) last_attempt = &e;
  ASSERT_NE(last_attempt, nullptr);
  ASSERT_EQ(last_attempt->outcome, Outcome::Bug);
  ASSERT_EQ(t.ok_attempts, 1);  // scene 0 trained, then zero_grad() before each of scene 1's attempts
  EXPECT_EQ(t.points_applied, 0);
  EXPECT_EQ(t.scenes_applied, 0);
  EXPECT_EQ(t.discarded_gradients, 1);
}

TEST(Defects, AccumulateKeepsWhatTrainedWhenTheLastAttemptFails) {
  Simulator sim(last_attempt_fails(GradMode::Accumulate));
  sim.run_to_end();
  EXPECT_EQ(sim.totals().points_applied, 4000);
  EXPECT_EQ(sim.totals().discarded_gradients, 0);
  EXPECT_EQ(sim.totals().renormalised_steps, 1);
}

TEST(Defects, AccumulateLossScalesAreSharesOfTheBatch) {
  SimConfig c = sized_config({4000, 3000, 5000, 2000}, 4, 4500);
  c.policy = preset_corrected();
  Simulator sim(c);
  sim.run_to_end();
  double sum = 0;
  for (const Event& e : sim.log().events) {
    if (e.outcome == Outcome::Ok) {
      EXPECT_DOUBLE_EQ(e.loss_scale, double(e.points) / 14000.0);
      sum += e.loss_scale;
    } else {
      EXPECT_EQ(e.loss_scale, 0.0);
    }
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);  // nothing dropped: no renormalisation needed
  EXPECT_EQ(sim.totals().renormalised_steps, 0);
}

// Fixed 1,000 bytes, budget 5,000, an OOM leaves 4,500 fragmented: right after an OOM only 500 are usable.
SimConfig fragmenting(std::int64_t relief_permille) {
  SimConfig c = sized_config({3000, 3000, 3000, 3000}, 4, 5000);
  c.memory.fixed_bytes = 1000;
  c.memory.fragmentation_penalty = 4500;
  c.memory.empty_cache_relief_permille = relief_permille;
  c.policy = preset_corrected();
  return c;
}

TEST(Defects, WithoutReliefFragmentationDropsEverything) {
  Simulator sim(fragmenting(0));
  sim.run_to_end();
  EXPECT_EQ(sim.totals().points_trained, 0);
  EXPECT_EQ(sim.totals().points_dropped, sim.totals().points);
}

TEST(Defects, EmptyCacheRelievesFragmentation) {
  Simulator sim(fragmenting(500));
  sim.run_to_end();
  const Totals& t = sim.totals();
  EXPECT_EQ(t.points_dropped, 0);
  EXPECT_EQ(t.points_trained, t.points);
  // The first retry sees 4,500 x 0.5 fragmented, the next 4,500 x 0.25 ...
  const auto& ev = sim.log().events;
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev[1].available, 5000 - 2250);
  EXPECT_EQ(ev[2].available, 5000 - 1125);
  EXPECT_EQ(t.empty_cache_calls, t.oom_attempts + t.bug_attempts);
}

TEST(Defects, ScientificNotationInASizesFileIsANumber) {
  const auto sizes = parse_scene_sizes("1e5\n2.5E4\n120000\n", "s.txt");
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{100000, 25000, 120000}));
  const auto csv = parse_scene_sizes("scene,size\na,1e5\n", "s.csv");
  EXPECT_EQ(csv, (std::vector<std::int64_t>{100000}));
  EXPECT_THROW(parse_scene_sizes("1.5\n", "s.txt"), Error);  // not a whole count
  EXPECT_THROW(parse_scene_sizes("1e9\n", "s.txt"), Error);  // over 100,000,000
  EXPECT_THROW(parse_scene_sizes("1e400\n", "s.txt"), Error);
}

TEST(Defects, SeedsTakeTheFull64BitRange) {
  SimConfig a = sized_config({40000, 30000}, 1, 1 << 30);
  a.scenes.dist = SizeDist::Uniform;
  a.scenes.sizes.clear();
  a.seed = 18446744073709551615ull;
  SimConfig b = a;
  b.seed = 18446744073709551615ull >> 1;
  Simulator sa(a), sb(b);
  EXPECT_NE(std::vector<std::int64_t>(sa.scene_sizes().begin(), sa.scene_sizes().end()),
            std::vector<std::int64_t>(sb.scene_sizes().begin(), sb.scene_sizes().end()));
  const SimConfig back = config_from_json(config_to_json(a), "t");
  EXPECT_EQ(back.seed, a.seed);
}

SimConfig bug_config(CatchMode mode, BugKind kind) {
  SimConfig c = sized_config({4000, 3000}, 2, 100000);
  c.policy = preset_corrected();
  c.policy.catch_mode = mode;
  c.fault = Fault{kind, 1};
  return c;
}

TEST(Defects, RuntimeErrorCatchesAShapeMismatchButNotANanCheck) {
  Simulator shape(bug_config(CatchMode::RuntimeError, BugKind::ShapeMismatch));
  shape.run_to_end();
  EXPECT_EQ(shape.totals().crashes, 0);
  EXPECT_GT(shape.totals().bug_attempts, 0);
  Simulator nan(bug_config(CatchMode::RuntimeError, BugKind::NanLoss));
  nan.run_to_end();
  EXPECT_EQ(nan.totals().crashes, 1);
}

TEST(Defects, OnFloorKeepTrainsWhatDropWouldLose) {
  // 1,600 points in 1,000 budget: halves of 800 fit. Floor 900: drop loses both halves, keep trains them.
  SimConfig c = sized_config({1600}, 1, 1000);
  c.policy = preset_corrected();
  c.policy.floor = 900;
  c.policy.on_floor = FloorAction::Drop;
  Simulator drop(c);
  drop.run_to_end();
  EXPECT_EQ(drop.totals().points_dropped, 1600);
  c.policy.on_floor = FloorAction::Keep;
  Simulator keep(c);
  keep.run_to_end();
  EXPECT_EQ(keep.totals().points_dropped, 0);
  EXPECT_EQ(keep.totals().points_applied, 1600);
  EXPECT_EQ(keep.totals().floor_kept_fragments, 2);
  c.policy.on_floor = FloorAction::Raise;
  Simulator raise(c);
  raise.run_to_end();
  EXPECT_TRUE(raise.crashed());
  EXPECT_EQ(raise.totals().floor_raised, 1);
  EXPECT_EQ(raise.totals().optimizer_steps, 0);
}

TEST(Defects, KeptFragmentsThatStillFailAreDroppedAndCounted) {
  SimConfig c = sized_config({1600}, 1, 1000);
  c.memory.fixed_bytes = 900;  // 800 points need 1,700: even the kept halves fail
  c.policy = preset_corrected();
  c.policy.floor = 900;
  Simulator sim(c);
  sim.run_to_end();
  EXPECT_EQ(sim.totals().floor_kept_fragments, 2);
  EXPECT_EQ(sim.totals().points_dropped, 1600);
  EXPECT_EQ(sim.totals().points_trained, 0);
}

TEST(Defects, BatchNormStatisticsCountedOnlyForBatchNorm) {
  SimConfig c = sized_config({5000, 600}, 2, 3000);
  c.policy = preset_original();
  c.policy.norm = NormMode::BatchNorm;
  Simulator bn(c);
  bn.run_to_end();
  EXPECT_EQ(bn.totals().norm_biased_points, bn.totals().points_spatial);
  EXPECT_GT(bn.totals().norm_biased_points, 0);
  EXPECT_GE(bn.totals().norm_small_fragments, 1);  // the 600-point scene: <= 2 x floor
  for (NormMode m : {NormMode::Frozen, NormMode::GroupNorm}) {
    c.policy.norm = m;
    Simulator other(c);
    other.run_to_end();
    EXPECT_EQ(other.totals().norm_biased_points, 0);
    EXPECT_EQ(other.totals().norm_small_fragments, 0);
    EXPECT_EQ(other.totals().points_spatial, bn.totals().points_spatial);  // same tree, other statistics
  }
}

// Measured, not claimed: under a median split each half holds exactly half the points whatever the axis,
// so the axis rule changes no outcome (only the boxes). docs/ and the GUI say so.
TEST(Defects, UnderAMedianSplitTheAxisRuleChangesNoOutcome) {
  SimConfig c = default_config();
  c.scenes.count = 32;
  c.policy = preset_corrected();
  c.policy.axis = AxisRule::Longest;
  Simulator longest(c);
  longest.run_to_end();
  c.policy.axis = AxisRule::AlternateXY;
  Simulator alternate(c);
  alternate.run_to_end();
  ASSERT_GT(longest.totals().points_spatial, 0);
  Totals a = longest.totals(), b = alternate.totals();
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace oomscope::sim
