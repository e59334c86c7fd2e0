// The split-and-retry loop. Includes c10's exception header only (for the typed catch), not torch/torch.h.

#include "core/train/split_retry.h"

#include <c10/util/Exception.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <map>

#include "core/train/budget_allocator.h"

namespace oomscope::train {

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

struct SplitRetryLoop::Batch {
  std::int64_t index = 0, epoch = 0, points = 0;
  std::deque<HostFragment> queue;
  std::map<std::int64_t, std::int64_t> scene_points, scene_ok, scene_dropped;
  std::int64_t ok_attempts = 0, ok_points = 0, attempts = 0, dropped_points = 0;
  bool last_ok = false;
  std::int64_t last_points = 0, last_scenes = 0;
  double loss_sum = 0;  // loss x points over ok attempts
  StepReport report;
};

SplitRetryLoop::SplitRetryLoop(RetryPolicy policy, AttemptRunner& runner, sim::TraceWriter* trace,
                               TrainObserver* observer, std::int64_t budget, LoopState state)
    : policy_(policy),
      runner_(runner),
      trace_(trace),
      observer_(observer),
      budget_(budget),
      state_(state),
      clock_origin_ns_(now_ns() - state.elapsed_ns) {}

LoopState SplitRetryLoop::state() const {
  LoopState s = state_;
  s.elapsed_ns = now_ns() - clock_origin_ns_;
  return s;
}

void SplitRetryLoop::emit(const HostFragment& f, sim::Outcome outcome, Batch& b, AttemptReport& r) {
  sim::Event e;
  e.id = state_.next_event++;
  e.parent = f.parent;
  e.step = state_.next_step;
  e.epoch = b.epoch;
  e.batch = b.index;
  e.depth = f.depth;
  e.origin = f.origin;
  e.outcome = outcome;
  e.axis = f.axis;
  e.split_value = f.axis >= 0 ? double(f.split_value) : 0.0;
  scratch_.clear();
  for (const auto& c : f.chunks) scratch_.scene_ids.push_back(static_cast<std::uint32_t>(c.scene));
  e.scenes_count = static_cast<std::uint32_t>(scratch_.scene_ids.size());
  e.points = f.points();
  e.bbox = f.bbox();
  e.bytes_needed = outcome == sim::Outcome::Dropped ? 0 : r.bytes_needed;
  e.budget = budget_;
  e.available = r.available;
  e.loss_scale = outcome == sim::Outcome::Ok ? r.loss_scale : 0.0;
  e.duration_ns = r.duration_ns;
  e.start_ns = now_ns() - clock_origin_ns_ - r.duration_ns;
  if (trace_) trace_->write_event(e, scratch_);
  r.event_id = e.id;
  r.step = e.step;
  r.batch = b.index;
  r.depth = f.depth;
  r.origin = f.origin;
  r.outcome = outcome;
  r.points = e.points;
  if (observer_) observer_->attempt_finished(r);
}

void SplitRetryLoop::drop(const HostFragment& f, Batch& b, bool unsplittable) {
  AttemptReport r;
  emit(f, sim::Outcome::Dropped, b, r);
  auto& t = state_.totals;
  t.dropped_fragments++;
  t.unsplittable_fragments += unsplittable;
  t.points_dropped += r.points;
  b.dropped_points += r.points;
  b.scene_dropped[f.chunks.at(0).scene] += r.points;
}

void SplitRetryLoop::requeue_split(HostFragment&& failed, std::int64_t event_id, Batch& b) {
  if (failed.chunks.size() > 1) {
    auto parts = split_by_scene(std::move(failed), event_id);
    const int n = static_cast<int>(parts.size());
    for (auto& p : parts) b.queue.push_back(std::move(p));
    if (observer_) observer_->split(event_id, "scene", n, 0);
    return;
  }
  const bool was_stalled = failed.stalled;
  const bool was_under_floor = failed.under_floor;
  SpatialSplit s = split_spatial(std::move(failed), event_id, policy_.axis, policy_.split);
  int queued = 0, dropped = 0;
  for (HostFragment* h : {&s.low, &s.high}) {
    const std::int64_t n = h->points();
    if (was_stalled && !s.separated) {
      // A split that separated nothing twice in a row would loop forever: dropped as unsplittable.
      drop(*h, b, n > policy_.floor);
      ++dropped;
    } else if (n > policy_.floor) {
      b.queue.push_back(std::move(*h));
      ++queued;
    } else if (n == 0 || policy_.on_floor == sim::FloorAction::Drop || was_under_floor) {
      // keep: the half of a fragment that was itself kept under the floor and still failed is dropped
      // (keeping it again would recurse to single points), as the simulator does.
      drop(*h, b, false);
      ++dropped;
    } else if (policy_.on_floor == sim::FloorAction::Keep) {
      h->under_floor = true;
      state_.totals.floor_kept_fragments++;
      b.queue.push_back(std::move(*h));
      ++queued;
    } else {
      // raise: the half is not attempted; the loop raises and nothing catches it.
      AttemptReport r;
      r.error = "a fragment of " + std::to_string(n) + " points of scene " +
                std::to_string(h->chunks.at(0).scene) + " is at the floor (" + std::to_string(policy_.floor) +
                " points): stopping instead of dropping it (on-floor raise)";
      auto& t = state_.totals;
      t.crashes++;
      t.floor_raised = 1;
      t.crash_scene = h->chunks.at(0).scene;
      t.crash_event = state_.next_event;
      emit(*h, sim::Outcome::Crash, b, r);
      throw FloorError(r.error);
    }
  }
  if (observer_) observer_->split(event_id, "spatial", queued, dropped);
}

StepReport SplitRetryLoop::run_batch(HostFragment batch, std::int64_t batch_index, std::int64_t epoch) {
  Batch b;
  b.index = batch_index;
  b.epoch = epoch;
  b.points = batch.points();
  for (const auto& c : batch.chunks) b.scene_points[c.scene] = static_cast<std::int64_t>(c.points.size());
  auto& t = state_.totals;
  t.batches++;
  t.scenes += static_cast<std::int64_t>(batch.chunks.size());
  t.points += b.points;
  const std::int64_t batch_start = now_ns();
  if (observer_)
    observer_->batch_started(batch_index, b.points, static_cast<std::int64_t>(batch.chunks.size()));
  b.queue.push_back(std::move(batch));

  while (!b.queue.empty()) {
    HostFragment f = std::move(b.queue.front());
    b.queue.pop_front();
    const std::int64_t n = f.points();
    const bool accumulate = policy_.grad == sim::GradMode::Accumulate;
    const double scale = accumulate && b.points > 0 ? double(n) / double(b.points) : 1.0;

    const std::int64_t t0 = now_ns();
    const std::int64_t cpu0 = thread_cpu_ns();
    const AllocatorStats before = allocator_stats();
    reset_peak();
    sim::Outcome outcome = sim::Outcome::Ok;
    std::exception_ptr uncaught;
    AttemptReport r;
    r.available = std::max<std::int64_t>(budget_ - before.live_bytes, 0);
    r.loss_scale = scale;
    auto classify = [&](bool caught) {
      outcome = caught ? sim::Outcome::Bug : sim::Outcome::Crash;
      if (!caught) uncaught = std::current_exception();
    };
    try {
      // The reference's zero_grad() at the top of every attempt. Under accumulate it clears only the
      // scratch gradient: kept gradients live in the runner's accumulator (keep_gradient), so a failed
      // attempt's partial backward never reaches the step.
      runner_.zero_grad();
      r.loss = runner_.attempt(f, scale);
    } catch (const c10::OutOfMemoryError& e) {
      outcome = sim::Outcome::Oom;
      r.error = e.what_without_backtrace();
    } catch (const c10::Error& e) {
      r.error = e.what_without_backtrace();
      classify(policy_.catch_mode != sim::CatchMode::OomOnly);
    } catch (const std::runtime_error& e) {
      r.error = e.what();
      classify(policy_.catch_mode != sim::CatchMode::OomOnly);
    } catch (const std::exception& e) {
      r.error = e.what();
      classify(policy_.catch_mode == sim::CatchMode::Everything);
    }
    // Here the handler has returned: the attempt's tensors were destroyed during unwinding.
    const AllocatorStats st = allocator_stats();
    r.peak_bytes = st.peak_bytes;
    r.bytes_needed = outcome == sim::Outcome::Oom && st.oom_count > before.oom_count
                         ? st.last_oom_live + st.last_oom_request
                         : st.peak_bytes;
    t.attempts++;
    b.attempts++;
    t.retries += f.origin != sim::Origin::Batch;
    const std::int64_t event_id = state_.next_event;

    if (outcome == sim::Outcome::Ok) {
      if (accumulate) runner_.keep_gradient();
      r.duration_ns = now_ns() - t0;
      r.cpu_ns = thread_cpu_ns() - cpu0;
      state_.ok_cpu_ns += r.cpu_ns;
      t.ok_attempts++;
      t.points_trained += n;
      t.ok_bytes_sum += r.bytes_needed;
      t.peak_ok_bytes = std::max(t.peak_ok_bytes, r.bytes_needed);
      if (f.origin == sim::Origin::SpatialLow || f.origin == sim::Origin::SpatialHigh) t.points_spatial += n;
      for (const auto& c : f.chunks) b.scene_ok[c.scene] += static_cast<std::int64_t>(c.points.size());
      b.ok_attempts++;
      b.loss_sum += r.loss * double(n);
      b.ok_points += n;
      b.last_ok = true;
      b.last_points = n;
      b.last_scenes = static_cast<std::int64_t>(f.chunks.size());
      emit(f, outcome, b, r);
    } else {
      b.last_ok = false;
      t.wasted_forward_passes++;
      if (outcome == sim::Outcome::Crash) {
        r.duration_ns = now_ns() - t0;
        r.cpu_ns = thread_cpu_ns() - cpu0;
        state_.failed_cpu_ns += r.cpu_ns;
        t.crashes++;
        t.crash_event = event_id;
        t.crash_scene = f.chunks.size() == 1 ? f.chunks[0].scene : -1;
        emit(f, outcome, b, r);
        std::rethrow_exception(uncaught);
      }
      t.empty_cache_calls++;  // the reference empties the cache after every caught failure (a no-op on the
                              // CPU)
      if (outcome == sim::Outcome::Oom) {
        t.oom_attempts++;
        b.report.ooms++;
        if (observer_) observer_->out_of_memory(r, st.last_oom_request);
      } else {
        t.bug_attempts++;
      }
      // The event is written before the split so that its children's parent id precedes them; its
      // duration covers the attempt and the clean-up up to here (the split's host work is counted in the
      // children's step).
      r.duration_ns = now_ns() - t0;
      r.cpu_ns = thread_cpu_ns() - cpu0;
      state_.failed_cpu_ns += r.cpu_ns;
      emit(f, outcome, b, r);
      requeue_split(std::move(f), event_id, b);
    }
    state_.next_step++;
  }

  // optimizer.step(): what reaches it depends on the gradient mode.
  std::int64_t applied = 0;
  if (policy_.grad == sim::GradMode::Accumulate) {
    const std::int64_t kept = b.points - b.dropped_points;
    // Renormalised: the kept fragments' shares add up to 1 again when fragments were dropped.
    const bool renormalise = kept > 0 && b.dropped_points > 0;
    runner_.load_accumulated(renormalise ? double(b.points) / double(kept) : 1.0);
    t.renormalised_steps += renormalise;
    for (const auto& [scene, ok] : b.scene_ok) {
      applied += ok;
      t.scenes_applied += ok > 0;
    }
  } else {
    if (b.last_ok) {
      applied = b.last_points;
      t.scenes_applied += b.last_scenes;
    }
    t.discarded_gradients += std::max<std::int64_t>(b.ok_attempts - (b.last_ok ? 1 : 0), 0);
  }
  runner_.optimizer_step();
  t.points_applied += applied;
  for (const auto& [scene, pts] : b.scene_points) {
    const std::int64_t ok = b.scene_ok.count(scene) ? b.scene_ok.at(scene) : 0;
    const std::int64_t dropped = b.scene_dropped.count(scene) ? b.scene_dropped.at(scene) : 0;
    t.scenes_dropped += ok == 0;
    t.scenes_partially_dropped += ok > 0 && dropped > 0;
  }
  t.optimizer_steps++;
  b.report.batch = b.index;
  b.report.points = b.points;
  b.report.points_applied = applied;
  b.report.attempts = b.attempts;
  b.report.loss = b.ok_points > 0 ? b.loss_sum / double(b.ok_points) : 0;
  b.report.duration_ns = now_ns() - batch_start;
  t.time_ns = now_ns() - clock_origin_ns_;
  if (observer_) observer_->step_finished(b.report);
  return b.report;
}

}  // namespace oomscope::train
