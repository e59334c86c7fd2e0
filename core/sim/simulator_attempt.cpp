// One attempt of the decision tree (docs/simulator-model.md): memory and fault check, outcome, time, and on a
// caught failure the split (per scene while a fragment holds several, else in space) and re-queue.

#include <algorithm>
#include <cmath>

#include "core/sim/detail/simulator_impl.h"
#include "core/sim/split.h"
#include "core/util/error.h"

namespace oomscope::sim {

namespace {

std::int64_t ps_to_ns(double ps) { return static_cast<std::int64_t>(std::llround(ps / 1000.0)); }

}  // namespace

Event& Simulator::Impl::emit(const Frag& f, Outcome outcome) {
  EventLog& out = target();
  Event e;
  e.id = next_id++;
  e.parent = f.parent;
  e.step = steps;
  e.epoch = batch / batches_per_epoch;
  e.batch = batch;
  e.depth = f.depth;
  e.origin = f.origin;
  e.outcome = outcome;
  e.axis = f.axis;
  e.split_value = f.axis >= 0 ? static_cast<double>(f.split_value) : 0.0;
  e.scenes_offset = static_cast<std::uint32_t>(out.scene_ids.size());
  e.scenes_count = f.slot_count;
  for (std::uint32_t s = f.slot_begin; s < f.slot_begin + f.slot_count; ++s)
    out.scene_ids.push_back(static_cast<std::uint32_t>(slot_scene[s]));
  e.points = f.points;
  e.bbox = f.box;
  e.budget = config.memory.budget;
  e.available = std::max<std::int64_t>(config.memory.budget - fragmented, 0);
  e.start_ns = totals.time_ns;
  out.events.push_back(e);
  return out.events.back();
}

void Simulator::Impl::drop(const Frag& f, bool unsplittable) {
  emit(f, Outcome::Dropped);
  totals.dropped_fragments++;
  totals.unsplittable_fragments += unsplittable;
  totals.points_dropped += f.points;
  slot_dropped[f.slot_begin] += f.points;
}

void Simulator::Impl::enqueue(const Frag& f) {
  if (queue.size() - head >= max_queued)
    throw Error(ErrorKind::InvalidArgument, config.scenes.sizes_file,
                "batch " + std::to_string(batch) + " was split into more than " + std::to_string(max_queued) +
                    " waiting fragments; the simulator stops here rather than "
                    "run out of memory. Raise --floor (now " +
                    std::to_string(config.policy.floor) + ") or the budget, or use smaller scenes");
  queue.push_back(f);
}

void Simulator::Impl::raise_at_floor(const Frag& f) {
  // --on-floor raise: the half is not attempted; the loop raises, and nothing catches it.
  Event& e = emit(f, Outcome::Crash);
  totals.crashes++;
  totals.floor_raised = 1;
  totals.crash_scene = slot_scene[f.slot_begin];
  totals.crash_event = e.id;
  head = queue.size();
}

void Simulator::Impl::attempt(Frag f) {
  const auto& mem = config.memory;
  const auto& tm = config.time;
  const std::int64_t bytes = attempt_bytes(mem, f.points);
  const std::int64_t available = std::max<std::int64_t>(mem.budget - fragmented, 0);
  const bool has_bug = bug_slot >= f.slot_begin && bug_slot < std::int64_t{f.slot_begin} + f.slot_count;
  const double fwd_ps = double(tm.forward_ps_per_point) * double(f.points);

  // A shape mismatch fails early in the forward pass, before the peak; a NaN loss only once the forward
  // pass (and so its memory) completed.
  Outcome outcome = Outcome::Ok;
  double ps = 0;
  if (has_bug && config.fault.kind == BugKind::ShapeMismatch) {
    outcome = Outcome::Bug;
    ps = fwd_ps * double(tm.shape_bug_forward_permille) / 1000.0;
  } else if (bytes > available) {
    outcome = Outcome::Oom;
    ps = fwd_ps * double(available) / double(bytes);  // the forward pass stops where memory ran out
  } else if (has_bug) {
    outcome = Outcome::Bug;
    ps = fwd_ps;
  } else {
    ps = double(tm.forward_ps_per_point + tm.backward_ps_per_point) * double(f.points);
  }
  // oom-only catches no bug; runtime-error catches a shape mismatch (a RuntimeError) but not a NaN-loss
  // check (FloatingPointError); everything catches both.
  if (outcome == Outcome::Bug &&
      (config.policy.catch_mode == CatchMode::OomOnly ||
       (config.policy.catch_mode == CatchMode::RuntimeError && config.fault.kind == BugKind::NanLoss)))
    outcome = Outcome::Crash;
  const bool caught = outcome == Outcome::Oom || outcome == Outcome::Bug;
  if (caught) ps += double(tm.host_copy_ps_per_point) * double(f.points);  // fragment back to the host

  Event& e = emit(f, outcome);
  e.bytes_needed = bytes;
  e.duration_ns = tm.fixed_ns_per_attempt + ps_to_ns(ps) + (caught ? tm.cache_flush_ns : 0);
  if (outcome == Outcome::Ok)
    e.loss_scale = config.policy.grad == GradMode::Accumulate ? double(f.points) / double(batch_points) : 1.0;
  last_needed = bytes;
  last_outcome = outcome;
  const std::int64_t event_id = e.id;
  totals.time_ns += e.duration_ns;
  totals.attempts++;
  totals.retries += f.origin != Origin::Batch;

  // zero_grad() ran before this attempt's forward: under last-fragment only its own gradient can remain.
  last_attempt_points = outcome == Outcome::Ok ? f.points : 0;
  last_attempt_scenes = outcome == Outcome::Ok ? f.slot_count : 0;
  switch (outcome) {
    case Outcome::Ok:
      totals.ok_attempts++;
      totals.points_trained += f.points;
      totals.ok_bytes_sum += bytes;
      totals.peak_ok_bytes = std::max(totals.peak_ok_bytes, bytes);
      if (f.origin == Origin::SpatialLow || f.origin == Origin::SpatialHigh)
        totals.points_spatial += f.points;
      for (std::uint32_t s = f.slot_begin; s < f.slot_begin + f.slot_count; ++s)
        slot_ok[s] += f.slot_count == 1 ? f.points : slot_points[s];
      batch_ok_attempts++;
      if (config.policy.norm == NormMode::BatchNorm) {
        // BatchNorm takes its statistics from the fragment: a spatial half is a biased sample, and a few
        // hundred points a degenerate one. Frozen statistics and GroupNorm take none from the fragment.
        if (f.origin == Origin::SpatialLow || f.origin == Origin::SpatialHigh)
          totals.norm_biased_points += f.points;
        totals.norm_small_fragments += f.points <= 2 * config.policy.floor;
      }
      fragmented = 0;
      flushed = false;
      return;
    case Outcome::Crash:
      totals.wasted_forward_passes++;
      totals.crashes++;
      totals.crash_scene = config.fault.scene;
      totals.crash_event = event_id;
      head = queue.size();  // the exception propagates out of the training loop
      return;
    case Outcome::Oom:
      totals.oom_attempts++;
      // An OOM after a success leaves the cached blocks fragmented; one in a freshly flushed cache does not.
      if (!flushed) fragmented = mem.fragmentation_penalty;
      break;
    case Outcome::Bug:
      totals.bug_attempts++;
      break;
    case Outcome::Dropped:
      return;
  }
  totals.wasted_forward_passes++;
  // The handler moves the fragment to the host and calls empty_cache(), which returns part of what is
  // fragmented.
  totals.empty_cache_calls++;
  fragmented -= fragmented / 1000 * mem.empty_cache_relief_permille +
                fragmented % 1000 * mem.empty_cache_relief_permille / 1000;
  flushed = true;

  if (f.slot_count > 1) {
    // One fragment per scene, each keeping the parent's axis flag; no floor for whole scenes.
    for (std::uint32_t s = f.slot_begin; s < f.slot_begin + f.slot_count; ++s) {
      Frag c;
      c.parent = event_id;
      c.points = slot_points[s];
      c.slot_begin = s;
      c.slot_count = 1;
      c.depth = f.depth + 1;
      c.box = scene_room(slot_scene[s], config.seed);
      c.origin = Origin::Scene;
      c.split_on_x = f.split_on_x;
      enqueue(c);
    }
    return;
  }
  split_spatial(f, event_id);
}

void Simulator::Impl::split_spatial(const Frag& parent, std::int64_t event_id) {
  Frag f = parent;
  const std::uint32_t s = f.slot_begin;
  if (f.origin != Origin::SpatialLow && f.origin != Origin::SpatialHigh) {
    // A whole scene: the room is its cell, and the scene's own stream starts here.
    f.box = scene_room(slot_scene[s], config.seed);
    f.key = scene_cell_key(slot_scene[s], config.seed);
  }
  if (!slot_layout[s]) slot_layout[s] = scene_layout(slot_scene[s], config.seed);
  const int axis = choose_axis(config.policy.axis, f.split_on_x, f.box);
  const CellSplit r = split_cell(*slot_layout[s], f.box, f.points, axis, config.policy.split, f.key);
  const bool separated = r.low_count > 0 && r.low_count < f.points;

  for (int side = 0; side < 2; ++side) {
    Frag c = f;
    c.parent = event_id;
    c.depth = f.depth + 1;
    c.axis = static_cast<std::int8_t>(axis);
    c.split_value = r.value;
    c.split_on_x = !f.split_on_x;
    c.stalled = !separated;
    c.origin = side == 0 ? Origin::SpatialLow : Origin::SpatialHigh;
    c.points = side == 0 ? r.low_count : f.points - r.low_count;
    c.box = side == 0 ? r.low_box : r.high_box;
    c.key = child_cell_key(f.key, side);
    // A split that separated nothing re-queues the same points; twice in a row would loop forever (the
    // reference would), so the second time the fragment is dropped as unsplittable.
    if (f.stalled && !separated) {
      drop(c, c.points > config.policy.floor);
    } else if (c.points > config.policy.floor) {
      enqueue(c);
    } else if (c.points == 0 || config.policy.on_floor == FloorAction::Drop || f.under_floor) {
      // drop: the reference. keep: a half of a fragment that was itself under the floor and still failed
      // cannot be kept again (that would recurse to single points): it is dropped, and reported.
      drop(c, false);
    } else if (config.policy.on_floor == FloorAction::Keep) {
      c.under_floor = true;
      totals.floor_kept_fragments++;
      enqueue(c);
    } else {
      raise_at_floor(c);
      return;
    }
  }
}

}  // namespace oomscope::sim
