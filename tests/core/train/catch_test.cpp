// A planted shape mismatch: crashes under oom-only, is swallowed under everything and runtime-error.
// The allocator never leaks across a retry.

#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include <sstream>

#include "core/sim/simulator.h"
#include "core/sim/trace_reader.h"
#include "core/sim/trace_writer.h"
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
    EXPECT_GT(t.bug_attempts, 3);       // the batch, the scene, then its halves down to the floor
    EXPECT_EQ(t.points_dropped, 5000);  // the whole bad scene, silently
    EXPECT_EQ(t.scenes_dropped, 1);
    EXPECT_EQ(t.optimizer_steps, 1);  // training went on
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
  void batch_started(std::int64_t, std::int64_t, std::int64_t) override {
    last = allocator_stats().live_bytes;
  }
  void attempt_finished(const AttemptReport& a) override {
    const std::int64_t now = allocator_stats().live_bytes;
    if (a.outcome == sim::Outcome::Oom) {
      ++ooms;
      EXPECT_EQ(now, last) << "attempt #" << a.event_id << " (" << a.points << " points) left " << now - last
                           << " bytes behind";
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

namespace oomscope::train {
namespace {

// A bug swallowed by `everything` is split down to the floor; what happens there follows --on-floor, and
// the real loop makes the same tree as the simulator (median halves are exact in both).
TEST(Catch, FloorActionsMatchTheSimulator) {
  for (sim::FloorAction action : {sim::FloorAction::Drop, sim::FloorAction::Keep, sim::FloorAction::Raise}) {
    SCOPED_TRACE(sim::to_string(action));
    install_budget_allocator();
    set_budget(0);
    auto model = TorchModel::create(buggy(sim::BugKind::ShapeMismatch));
    RetryPolicy p = policy_corrected();
    p.catch_mode = sim::CatchMode::Everything;
    p.on_floor = action;
    std::ostringstream trace_text;
    sim::TraceHeader h;
    h.source = "libtorch";
    sim::TraceWriter writer(trace_text, h);
    SplitRetryLoop loop(p, *model, &writer, nullptr, std::int64_t{1} << 60);
    const auto order = sim::epoch_order(3, 1, 0);  // the simulator's batch 0
    if (action == sim::FloorAction::Raise)
      EXPECT_THROW(loop.run_batch(batch_of(order), 0, 0), FloorError);
    else
      loop.run_batch(batch_of(order), 0, 0);
    std::istringstream in(trace_text.str());
    const sim::Trace real = sim::read_trace(in, "real");

    sim::SimConfig sc;
    sc.policy = p;
    sc.scenes.dist = sim::SizeDist::File;
    sc.scenes.sizes = {testing::kSizes[0], testing::kSizes[1], testing::kSizes[2]};
    sc.scenes.count = 3;
    sc.batch = 3;
    sc.seed = 1;
    sc.memory.budget = std::int64_t{1} << 60;
    sc.memory.fragmentation_penalty = 0;
    sc.fault = {sim::BugKind::ShapeMismatch, 1};
    sim::Simulator s(sc);
    s.run_to_end();
    ASSERT_EQ(s.log().events.size(), real.log.events.size());
    for (std::size_t i = 0; i < real.log.events.size(); ++i) {
      EXPECT_EQ(real.log.events[i].outcome, s.log().events[i].outcome) << "event " << i;
      EXPECT_EQ(real.log.events[i].points, s.log().events[i].points) << "event " << i;
    }
    const auto& t = loop.state().totals;
    EXPECT_EQ(t.floor_kept_fragments, s.totals().floor_kept_fragments);
    EXPECT_EQ(t.floor_raised, s.totals().floor_raised);
    EXPECT_EQ(t.points_dropped, s.totals().points_dropped);
    if (action == sim::FloorAction::Keep) {
      EXPECT_GT(t.floor_kept_fragments, 0);
    }
    if (action == sim::FloorAction::Raise) {
      EXPECT_EQ(t.floor_raised, 1);
    }
  }
}

}  // namespace
}  // namespace oomscope::train
