// Presets, option values, byte sizes, validation, baselines.

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

TEST(Config, PresetsAreTheReferenceAndTheFix) {
  const Policy o = preset_original();
  EXPECT_EQ(o.catch_mode, CatchMode::Everything);
  EXPECT_EQ(o.grad, GradMode::LastFragment);
  EXPECT_EQ(o.split, SplitPoint::Midpoint);
  EXPECT_EQ(o.axis, AxisRule::AlternateXY);
  EXPECT_EQ(o.floor, 500);
  const Policy c = preset_corrected();
  EXPECT_EQ(c.catch_mode, CatchMode::OomOnly);
  EXPECT_EQ(c.grad, GradMode::Accumulate);
  EXPECT_EQ(c.split, SplitPoint::Median);
  EXPECT_EQ(c.axis, AxisRule::Longest);
  EXPECT_EQ(preset_name(o), "original");
  EXPECT_EQ(preset_name(c), "corrected");
  Policy mixed = o;
  mixed.grad = GradMode::Accumulate;
  EXPECT_EQ(preset_name(mixed), "custom");
  EXPECT_FALSE(preset_by_name("fixed"));
}

TEST(Config, NamesRoundTrip) {
  for (auto v : {CatchMode::OomOnly, CatchMode::Everything}) EXPECT_EQ(parse_catch_mode(to_string(v)), v);
  for (auto v : {GradMode::LastFragment, GradMode::Accumulate}) EXPECT_EQ(parse_grad_mode(to_string(v)), v);
  for (auto v : {SplitPoint::Midpoint, SplitPoint::Median}) EXPECT_EQ(parse_split_point(to_string(v)), v);
  for (auto v : {AxisRule::AlternateXY, AxisRule::Longest}) EXPECT_EQ(parse_axis_rule(to_string(v)), v);
  for (auto v : {BugKind::None, BugKind::ShapeMismatch, BugKind::NanLoss})
    EXPECT_EQ(parse_bug_kind(to_string(v)), v);
  EXPECT_FALSE(parse_catch_mode("oom"));
  // The aliases parse; the name written back is the short one.
  EXPECT_EQ(parse_bug_kind("shape-mismatch"), BugKind::ShapeMismatch);
  EXPECT_EQ(parse_bug_kind("nan-loss"), BugKind::NanLoss);
  EXPECT_STREQ(to_string(BugKind::NanLoss), "nan");
  // The lists that error messages give are the tables' names, aliases left out.
  EXPECT_EQ(enum_choices(kCatchModeNames), "oom-only, everything or runtime-error");
  EXPECT_EQ(enum_choices(kBugKindNames), "none, shape or nan");
  EXPECT_EQ(parse_size_dist("heavy-tailed"), SizeDist::HeavyTailed);
  EXPECT_FALSE(parse_size_dist("normal"));
}

TEST(Config, PresetOfAPolicy) {
  EXPECT_EQ(preset_of(preset_original()), Preset::Original);
  EXPECT_EQ(preset_of(preset_corrected()), Preset::Corrected);
  Policy mixed = preset_corrected();
  mixed.floor = 1;
  EXPECT_EQ(preset_of(mixed), Preset::Custom);
  EXPECT_EQ(preset_policy(Preset::Corrected), preset_corrected());
  EXPECT_FALSE(preset_policy(Preset::Custom));
  EXPECT_EQ(preset_by_name("original"), preset_original());
  EXPECT_FALSE(preset_by_name("custom"));  // a name, but not a policy
}

TEST(Config, ValidateNamesTheBadField) {
  SimConfig c;
  EXPECT_NO_THROW(validate(c));
  c.batch = 0;
  try {
    validate(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(e.what()), "batch must be >= 1 scene, got 0");
  }
  c = SimConfig{};
  c.fault = Fault{BugKind::ShapeMismatch, 64};
  EXPECT_THROW(validate(c), Error) << "scenes are 0..63";
  c.fault.scene = 63;
  EXPECT_NO_THROW(validate(c));
}

TEST(Config, DefaultsShowTheInterestingBehaviour) {
  // The claims made in config.h about the defaults.
  Simulator sim{SimConfig{}};
  sim.run_to_end();
  const Totals& t = sim.totals();
  std::int64_t batch_ooms = 0, scene_ooms = 0;
  for (const Event& e : sim.log().events) {
    batch_ooms += e.origin == Origin::Batch && e.outcome == Outcome::Oom;
    scene_ooms += e.origin == Origin::Scene && e.outcome == Outcome::Oom;
  }
  EXPECT_GT(batch_ooms, t.batches / 2) << "most batches OOM as a batch";
  EXPECT_GT(scene_ooms, 0) << "some single scenes need a spatial split";
  EXPECT_LT(scene_ooms, t.scenes / 2);
  EXPECT_GT(t.points_spatial, 0);
}

TEST(Baselines, LazyFixAndMicroBatches) {
  // Largest scene 400 in a 700 budget: lazy fix = 1 scene per step; any two scenes fit (<= 700), so
  // micro-batches of 2 with accumulation 2.
  SimConfig c = testing::sized_config({100, 200, 300, 400}, 4, 700);
  c.epochs = 3;
  const Baselines b = compute_baselines(c, c.scenes.sizes);
  EXPECT_TRUE(b.lazy_fix.feasible);
  EXPECT_EQ(b.lazy_fix.scenes_per_attempt, 1);
  EXPECT_EQ(b.lazy_fix.attempts, 12);
  EXPECT_EQ(b.lazy_fix.optimizer_steps, 12);
  EXPECT_DOUBLE_EQ(b.lazy_fix.peak_utilisation, 400.0 / 700.0);
  EXPECT_DOUBLE_EQ(b.lazy_fix.mean_utilisation, 250.0 / 700.0);
  EXPECT_TRUE(b.micro_batch.feasible);
  EXPECT_EQ(b.micro_batch.scenes_per_attempt, 2);
  EXPECT_EQ(b.micro_batch.accumulation, 2);
  EXPECT_EQ(b.micro_batch.attempts, 6);
  EXPECT_EQ(b.micro_batch.optimizer_steps, 3);
  EXPECT_EQ(b.micro_batch.time_ns, b.lazy_fix.time_ns - 6 * c.time.fixed_ns_per_attempt);
}

TEST(Baselines, InfeasibleWhenOneSceneExceedsTheBudget) {
  SimConfig c = testing::sized_config({100, 900}, 2, 700);
  const Baselines b = compute_baselines(c, c.scenes.sizes);
  EXPECT_FALSE(b.lazy_fix.feasible);
  EXPECT_EQ(b.lazy_fix.oom_attempts, 1);
  EXPECT_FALSE(b.micro_batch.feasible);
  EXPECT_EQ(b.micro_batch.scenes_per_attempt, 1);
}

}  // namespace
}  // namespace oomscope::sim
