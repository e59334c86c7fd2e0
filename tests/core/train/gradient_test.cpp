// The corrected policy's accumulated gradient is the full-batch gradient; last-fragment is not, and it
// applies exactly the points the simulator says it does. Real LibTorch, CPU, a few thousand points.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/sim/simulator.h"
#include "core/train/calibrate.h"
#include "tests/core/train/train_test_helpers.h"

namespace oomscope::train {
namespace {

using testing::batch_of;
using testing::budget_between;
using testing::GradCapture;
using testing::small_model;

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float m = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

float max_abs(const std::vector<float>& a) {
  float m = 0;
  for (float v : a) m = std::max(m, std::abs(v));
  return m;
}

struct BudgetGuard {
  ~BudgetGuard() { set_budget(0); }
};

// The gradient of one batch, run whole with no budget.
std::vector<float> full_batch_gradient(const ModelConfig& mc, const std::vector<std::int64_t>& scenes) {
  install_budget_allocator();
  set_budget(0);
  auto model = TorchModel::create(mc);
  GradCapture cap(*model);
  RetryPolicy p = policy_corrected();
  SplitRetryLoop loop(p, cap, nullptr, nullptr, 0);
  const auto r = loop.run_batch(batch_of(scenes), 0, 0);
  EXPECT_EQ(r.attempts, 1);
  return cap.stepped;
}

TEST(Gradient, AccumulatedEqualsFullBatchUnderSceneAndSpatialSplits) {
  // No per-scene pool: nothing couples points, so every split must leave the gradient unchanged.
  const ModelConfig mc = small_model(/*pool=*/false);
  const std::vector<std::int64_t> scenes = {0, 1, 2};  // 3000 + 5000 + 4000 points
  const auto full = full_batch_gradient(mc, scenes);
  BudgetGuard guard;
  const std::int64_t budget =
      budget_between(mc, 3000, 4000);  // the 4000- and 5000-point scenes split in space
  auto model = TorchModel::create(mc);
  GradCapture cap(*model);
  RetryPolicy p = policy_corrected();
  set_budget(budget);
  SplitRetryLoop loop(p, cap, nullptr, nullptr, budget);
  const auto r = loop.run_batch(batch_of(scenes), 0, 0);
  const auto& t = loop.state().totals;
  EXPECT_GE(t.oom_attempts, 3);  // the batch, and two scenes
  EXPECT_GT(t.points_spatial, 0);
  EXPECT_EQ(t.points_dropped, 0);
  EXPECT_EQ(r.points_applied, 12000);
  const float diff = max_abs_diff(cap.stepped, full);
  RecordProperty("max_abs_diff", std::to_string(diff));
  std::cout << "accumulate vs full batch: " << t.attempts << " attempts, max |diff| = " << diff
            << " (largest gradient entry " << max_abs(full) << ")\n";
  EXPECT_LT(diff, 1e-5f * std::max(1.0f, max_abs(full)));
}

TEST(Gradient, LastFragmentDiffersAndAppliesWhatTheSimulatorCounts) {
  const ModelConfig mc = small_model(/*pool=*/true);
  BudgetGuard guard;
  const std::int64_t budget = budget_between(mc, 4000, 5000);
  RetryPolicy p = policy_original();
  p.split = sim::SplitPoint::Median;  // exact halves: the simulator's counts are the real ones
  std::vector<std::int64_t> real_applied, real_outcomes;
  std::vector<float> last_grad;
  sim::Totals real;
  {
    auto model = TorchModel::create(mc);
    GradCapture cap(*model);
    set_budget(budget);
    SplitRetryLoop loop(p, cap, nullptr, nullptr, budget);
    for (std::int64_t b = 0; b < 2; ++b) {
      const auto order = sim::epoch_order(6, 1, 0);
      const std::vector<std::int64_t> scenes(order.begin() + 3 * b, order.begin() + 3 * b + 3);
      const auto r = loop.run_batch(batch_of(scenes), b, 0);
      real_applied.push_back(r.points_applied);
      if (b == 0) {
        last_grad = cap.stepped;
        set_budget(0);
        const auto full = full_batch_gradient(mc, scenes);
        set_budget(budget);
        const float diff = max_abs_diff(last_grad, full);
        std::cout << "last-fragment vs full batch: max |diff| = " << diff << "\n";
        EXPECT_GT(diff, 1e-3f * max_abs(full));
      }
    }
    real = loop.state().totals;
  }
  sim::SimConfig sc;
  sc.policy.catch_mode = sim::CatchMode::Everything;
  sc.policy.grad = sim::GradMode::LastFragment;
  sc.policy.split = sim::SplitPoint::Median;
  sc.policy.axis = sim::AxisRule::AlternateXY;
  sc.scenes.dist = sim::SizeDist::File;
  sc.scenes.sizes = testing::kSizes;
  sc.scenes.count = 6;
  sc.batch = 3;
  sc.seed = 1;
  std::ostringstream log;
  const Calibration c = calibrate(mc, {1000, 3000}, 1, log);
  sc.memory.fixed_bytes = c.fixed_bytes;
  sc.memory.bytes_per_point = static_cast<std::int64_t>(std::llround(c.bytes_per_point));
  sc.memory.budget = budget;
  sc.memory.fragmentation_penalty = 0;
  sim::Simulator s(sc);
  s.run_to_end();
  EXPECT_EQ(real.attempts, s.totals().attempts);
  EXPECT_EQ(real.oom_attempts, s.totals().oom_attempts);
  EXPECT_EQ(real.points_applied, s.totals().points_applied);
  EXPECT_EQ(real.discarded_gradients, s.totals().discarded_gradients);
  EXPECT_LT(real.points_applied, real.points);
  std::cout << "last-fragment: " << real.points_applied << " of " << real.points
            << " points reached the optimizer (simulator: " << s.totals().points_applied << ")\n";
}

}  // namespace
}  // namespace oomscope::train
