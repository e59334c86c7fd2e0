#pragma once
// The event schema shared by the simulator and a real (LibTorch) trainer: one Event per attempt (plus one
// per fragment dropped under the floor) and the run's Totals; the Baselines it is compared with are in
// baselines.h. docs/sim-trace-format.md documents the same fields as JSON.

#include <cstdint>
#include <span>
#include <vector>

#include "core/sim/baselines.h"
#include "core/sim/config.h"
#include "core/sim/scene.h"

namespace oomscope::sim {

enum class Outcome : std::uint8_t {
  Ok,       // forward+backward done, gradient computed
  Oom,      // ran out of memory, caught, fragment split and re-queued
  Bug,      // a non-OOM exception swallowed by `catch everything`, treated like an OOM
  Dropped,  // a spatial half with <= floor points (no forward pass), or one that cannot be split further
  Crash,    // a non-OOM exception under `oom-only`: the trainer stops here
};

// How a fragment came to exist.
enum class Origin : std::uint8_t {
  Batch,        // the whole batch as the data loader produced it
  Scene,        // one scene of a multi-scene fragment that failed
  SpatialLow,   // the half with coordinate < split value
  SpatialHigh,  // the half with coordinate >= split value
};

inline constexpr EnumName<Outcome> kOutcomeNames[] = {{Outcome::Ok, "ok"},
                                                      {Outcome::Oom, "oom"},
                                                      {Outcome::Bug, "bug"},
                                                      {Outcome::Dropped, "dropped"},
                                                      {Outcome::Crash, "crash"}};
inline constexpr EnumName<Origin> kOriginNames[] = {{Origin::Batch, "batch"},
                                                    {Origin::Scene, "scene"},
                                                    {Origin::SpatialLow, "spatial-low"},
                                                    {Origin::SpatialHigh, "spatial-high"}};
static_assert(names_every_value(kOutcomeNames, Outcome::Crash));
static_assert(names_every_value(kOriginNames, Origin::SpatialHigh));
const char* to_string(Outcome v);  // "ok" | "oom" | "bug" | "dropped" | "crash"
const char* to_string(Origin v);   // "batch" | "scene" | "spatial-low" | "spatial-high"

struct Event {
  std::int64_t id = 0;       // 0-based, in order of the log
  std::int64_t parent = -1;  // the failed attempt this fragment was split from; -1 for a batch
  std::int64_t step = 0;     // the step that produced it (an attempt and the halves it dropped share a step)
  std::int64_t epoch = 0;
  std::int64_t batch = 0;  // batch index over the whole run (not reset per epoch)
  std::int32_t depth = 0;  // 0 for a batch, parent's depth + 1 otherwise
  Origin origin = Origin::Batch;
  Outcome outcome = Outcome::Ok;
  std::int8_t axis = -1;   // axis of the spatial split that made this fragment (0 x, 1 y, 2 z), else -1
  double split_value = 0;  // coordinate of that split (meaningful when axis >= 0)
  std::uint32_t scenes_offset = 0;  // this event's scene ids: EventLog::scene_ids[offset, offset+count)
  std::uint32_t scenes_count = 0;
  std::int64_t points = 0;
  Bbox bbox;
  std::int64_t bytes_needed = 0;  // 0 for a dropped fragment
  std::int64_t budget = 0;        // the configured budget
  std::int64_t available = 0;     // budget minus fragmentation left by a previous OOM
  std::int64_t start_ns = 0;      // simulated time since the start of the run
  std::int64_t duration_ns = 0;   // including the host copy + cache flush a failure pays
  // The factor this attempt's loss was scaled by: its share of the batch's points under `accumulate`
  // (the step renormalises when points were dropped), 1 under `last-fragment`, 0 for a failed attempt.
  double loss_scale = 0;
};

// Events plus the pool their scene id lists live in (one allocation-free append per event).
struct EventLog {
  std::vector<Event> events;
  std::vector<std::uint32_t> scene_ids;

  std::span<const std::uint32_t> scenes(const Event& e) const {
    return {scene_ids.data() + e.scenes_offset, e.scenes_count};
  }
  void clear() {
    events.clear();
    scene_ids.clear();
  }
};

struct Totals {
  std::int64_t epochs_done = 0;
  std::int64_t batches = 0;          // batches started
  std::int64_t optimizer_steps = 0;  // batches whose queue emptied
  std::int64_t scenes = 0;           // scenes in the batches started
  std::int64_t points = 0;           // points in the batches started
  std::int64_t attempts = 0;         // forward passes started: ok + oom + bug + crash
  std::int64_t ok_attempts = 0;
  std::int64_t oom_attempts = 0;
  std::int64_t bug_attempts = 0;
  std::int64_t retries = 0;                // attempts on a fragment that is not a whole batch
  std::int64_t wasted_forward_passes = 0;  // failed attempts (oom + bug + crash)
  std::int64_t discarded_gradients = 0;    // ok attempts whose gradient zero_grad() cleared before the step
  std::int64_t dropped_fragments = 0;
  std::int64_t unsplittable_fragments = 0;  // dropped because no split could separate their points
  std::int64_t points_dropped = 0;
  std::int64_t scenes_dropped = 0;            // scenes of which no point was trained
  std::int64_t scenes_partially_dropped = 0;  // scenes that lost some but not all points
  std::int64_t points_trained = 0;            // points in ok attempts
  std::int64_t points_applied = 0;            // points whose gradient reached optimizer.step()
  std::int64_t scenes_applied = 0;            // scenes with at least one point in the step
  std::int64_t points_spatial = 0;            // points trained in spatially split fragments
  // Optional in a trace (0 when absent): counters added after the first version of the format.
  std::int64_t empty_cache_calls = 0;     // one per caught failure, before the retry
  std::int64_t renormalised_steps = 0;    // accumulate: steps whose scales were renormalised after drops
  std::int64_t floor_kept_fragments = 0;  // --on-floor keep: halves at or under the floor trained anyway
  std::int64_t norm_biased_points = 0;    // points trained in spatial halves with BatchNorm batch statistics
  std::int64_t norm_small_fragments =
      0;                          // ok attempts on <= 2 x floor points with BatchNorm batch statistics
  std::int64_t floor_raised = 0;  // --on-floor raise: 1 when the run stopped at the floor
  std::int64_t crashes = 0;
  std::int64_t crash_scene = -1;  // the scene whose bug crashed the run
  std::int64_t crash_event = -1;
  std::int64_t time_ns = 0;           // simulated wall clock
  std::int64_t oom_free_time_ns = 0;  // the same batches with unlimited memory: one pass each
  std::int64_t ok_bytes_sum = 0;      // sum of bytes_needed over ok attempts
  std::int64_t peak_ok_bytes = 0;

  double applied_point_fraction() const { return points ? double(points_applied) / double(points) : 0.0; }
  double applied_scene_fraction() const { return scenes ? double(scenes_applied) / double(scenes) : 0.0; }
  // (time - oom-free time) / oom-free time
  double overhead() const {
    return oom_free_time_ns ? double(time_ns - oom_free_time_ns) / double(oom_free_time_ns) : 0.0;
  }
  friend bool operator==(const Totals&, const Totals&) = default;
};

}  // namespace oomscope::sim
