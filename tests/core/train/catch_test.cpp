// A planted shape mismatch: crashes under oom-only, is swallowed under everything and runtime-error.
// The allocator never leaks across a retry.

#include <gtest/gtest.h>

#include <c10/util/Exception.h>

#include "tests/core/train/train_test_helpers.h"

namespace oomscope::train {
namespace {

using testing::batch_of;
using testing::small_model;

ModelConfig buggy(sim::BugKind kind) {
  ModelConfig mc = small_model(true);
  mc.fault = kind;
  mc.fault_scene = 1;  // 5000 points
  return mc;
}

sim::Totals run_with(sim::CatchMode mode, sim::BugKind kind) {
  install_budget_allocator();
  set_budget(0);
  auto model = TorchModel::create(buggy(kind));
  RetryPolicy p = policy_original();
  p.catch_mode = mode;
  SplitRetryLoop loop(p, *model, nullptr, nullptr, 0);
  loop.run_batch(batch_of({0, 1, 2}), 0, 0);
  return loop.state().totals;
}

TEST(Catch, ShapeMismatchCrashesUnderOomOnly) {
  install_budget_allocator();
  set_budget(0);
  auto model = TorchModel::create(buggy(sim::BugKind::ShapeMismatch));
  RetryPolicy p = policy_corrected();
  SplitRetryLoop loop(p, *model, nullptr, nullptr, 0);
  EXPECT_THROW(loop.run_batch(batch_of({0, 1, 2}), 0, 0), c10::Error);
  const auto& t = loop.state().totals;
  EXPECT_EQ(t.crashes, 1);
  EXPECT_EQ(t.attempts, 1);  // the whole batch holds the bad scene: the first attempt crashes
  EXPECT_EQ(t.crash_event, 0);
}

TEST(Catch, ShapeMismatchIsSwallowedUnderEverythingAndRuntimeError) {
  for (sim::CatchMode mode : {sim::CatchMode::Everything, sim::CatchMode::RuntimeError}) {
    const sim::Totals t = run_with(mode, sim::BugKind::ShapeMismatch);
    SCOPED_TRACE(sim::to_string(mode));
    EXPECT_EQ(t.crashes, 0);
    EXPECT_GT(t.bug_attempts, 3);         // the batch, the scene, then its halves down to the floor
    EXPECT_EQ(t.points_dropped, 5000);    // the whole bad scene, silently
    EXPECT_EQ(t.scenes_dropped, 1);
    EXPECT_EQ(t.optimizer_steps, 1);      // training went on
  }
}

TEST(Catch, NanLossIsSwallowedOnlyByEverything) {
  // Python raises FloatingPointError for the loss check, not RuntimeError: runtime-error lets it through.
  EXPECT_EQ(run_with(sim::CatchMode::Everything, sim::BugKind::NanLoss).scenes_dropped, 1);
  for (sim::CatchMode mode : {sim::CatchMode::OomOnly, sim::CatchMode::RuntimeError}) {
    install_budget_allocator();
    auto model = TorchModel::create(buggy(sim::BugKind::NanLoss));
    RetryPolicy p = policy_original();
    p.catch_mode = mode;
    SplitRetryLoop loop(p, *model, nullptr, nullptr, 0);
    EXPECT_THROW(loop.run_batch(batch_of({1}), 0, 0), NonFiniteLoss) << sim::to_string(mode);
  }
}

// Records live bytes around every attempt.
class LiveBytes final : public TrainObserver {
 public:
  void batch_started(std::int64_t, std::int64_t, std::int64_t) override { last = allocator_stats().live_bytes; }
  void attempt_finished(const AttemptReport& a) override {
    const std::int64_t now = allocator_stats().live_bytes;
    if (a.outcome == sim::Outcome::Oom) {
      ++ooms;
      EXPECT_EQ(now, last) << "attempt #" << a.event_id << " (" << a.points << " points) left "
                           << now - last << " bytes behind";
    }
    last = now;
  }
  std::int64_t last = 0;
  int ooms = 0;
};

TEST(Catch, NothingLeaksAcrossARetry) {
  for (sim::GradMode grad : {sim::GradMode::Accumulate, sim::GradMode::LastFragment}) {
    const std::int64_t budget = testing::budget_between(small_model(true), 3500, 4000);
    auto model = TorchModel::create(small_model(true));
    RetryPolicy p = policy_corrected();
    p.grad = grad;
    SplitRetryLoop warm(p, *model, nullptr, nullptr, 0);
    warm.run_batch(batch_of({4}), 0, 0);  // gradients and optimizer state exist from here on
    const std::int64_t base = allocator_stats().live_bytes;
    LiveBytes live;
    set_budget(budget);  // the batches and the bigger scenes fail, their halves fit
    SplitRetryLoop loop(p, *model, nullptr, &live, budget);
    loop.run_batch(batch_of({0, 1, 2}), 1, 0);
    loop.run_batch(batch_of({3, 4, 5}), 2, 0);
    set_budget(0);
    EXPECT_GE(live.ooms, 4);
    EXPECT_EQ(allocator_stats().live_bytes, base) << sim::to_string(grad);
  }
}

}  // namespace
}  // namespace oomscope::train
