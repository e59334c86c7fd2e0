#include "core/sim/step_totals.h"

#include <algorithm>
#include <unordered_map>

#include "core/sim/simulator.h"

namespace oomscope::sim {

std::vector<std::uint32_t> step_boundaries(const EventLog& log) {
  std::vector<std::uint32_t> ends{0};
  const auto& ev = log.events;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (i + 1 == ev.size() || ev[i + 1].step != ev[i].step) ends.push_back(std::uint32_t(i + 1));
  return ends;
}

namespace {

// The open batch: which scenes trained how many points, for the optimizer-step counters.
struct OpenBatch {
  std::unordered_map<std::uint32_t, std::int64_t> ok_points;  // scene -> points trained
  std::unordered_map<std::uint32_t, bool> lost_points;        // scene -> some of its points were dropped
  std::int64_t points = 0, ok_points_sum = 0, ok_attempts = 0;
  // What the batch's last attempt left after its zero_grad(): nothing when it failed.
  std::int64_t last_attempt_points = 0, last_attempt_scenes = 0;
};

void end_batch(Totals& t, const OpenBatch& b, std::optional<GradMode> grad) {
  if (grad == GradMode::Accumulate) {
    t.points_applied += b.ok_points_sum;
    for (const auto& [scene, pts] : b.ok_points) t.scenes_applied += pts > 0;
    t.renormalised_steps += b.ok_points_sum > 0 && b.ok_points_sum < b.points;
  } else if (grad == GradMode::LastFragment) {
    t.points_applied += b.last_attempt_points;
    t.scenes_applied += b.last_attempt_scenes;
    t.discarded_gradients += b.ok_attempts - (b.last_attempt_points > 0 ? 1 : 0);
  }
  for (const auto& [scene, pts] : b.ok_points) {
    t.scenes_dropped += pts == 0;
    const auto lost = b.lost_points.find(scene);
    t.scenes_partially_dropped += pts > 0 && lost != b.lost_points.end() && lost->second;
  }
  t.optimizer_steps++;
}

}  // namespace

std::vector<Totals> step_totals(const EventLog& log, const std::vector<std::uint32_t>& step_end,
                                std::optional<GradMode> grad, const TimeModel* time) {
  const auto& ev = log.events;
  // The last event of each batch closes it (unless the run crashed there).
  std::vector<bool> closes_batch(ev.size(), false);
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (i + 1 == ev.size() || ev[i + 1].parent < 0) closes_batch[i] = true;

  std::vector<Totals> out;
  out.reserve(step_end.size());
  Totals t;
  out.push_back(t);
  OpenBatch batch;
  std::size_t i = 0;
  for (std::size_t s = 1; s < step_end.size(); ++s) {
    for (; i < step_end[s] && i < ev.size(); ++i) {
      const Event& e = ev[i];
      const auto scenes = log.scenes(e);
      if (e.parent < 0) {
        batch = OpenBatch{};
        for (auto sc : scenes) batch.ok_points[sc] = 0;
        t.batches++;
        t.scenes += std::int64_t(scenes.size());
        t.points += e.points;
        batch.points = e.points;
        if (time) t.oom_free_time_ns += ok_attempt_ns(*time, e.points);
      }
      t.time_ns = std::max(t.time_ns, e.start_ns + e.duration_ns);
      // A crash with no bytes needed was raised at the floor (--on-floor raise), without a forward pass.
      const bool floor_raise = e.outcome == Outcome::Crash && e.bytes_needed == 0;
      if (e.outcome != Outcome::Dropped && !floor_raise) {
        t.attempts++;
        t.retries += e.parent >= 0;
        batch.last_attempt_points = e.outcome == Outcome::Ok ? e.points : 0;
        batch.last_attempt_scenes = e.outcome == Outcome::Ok ? std::int64_t(scenes.size()) : 0;
      }
      t.empty_cache_calls += e.outcome == Outcome::Oom || e.outcome == Outcome::Bug;
      const bool spatial = e.origin == Origin::SpatialLow || e.origin == Origin::SpatialHigh;
      switch (e.outcome) {
        case Outcome::Ok:
          t.ok_attempts++;
          t.points_trained += e.points;
          t.ok_bytes_sum += e.bytes_needed;
          t.peak_ok_bytes = std::max(t.peak_ok_bytes, e.bytes_needed);
          if (spatial) t.points_spatial += e.points;
          // A multi-scene fragment is whole scenes: only "trained at all" matters per scene there.
          for (auto sc : scenes) batch.ok_points[sc] += scenes.size() == 1 ? e.points : 1;
          batch.ok_points_sum += e.points;
          batch.ok_attempts++;
          break;
        case Outcome::Oom:
          t.oom_attempts++;
          t.wasted_forward_passes++;
          break;
        case Outcome::Bug:
          t.bug_attempts++;
          t.wasted_forward_passes++;
          break;
        case Outcome::Crash:
          t.crashes++;
          t.floor_raised += floor_raise;
          t.wasted_forward_passes += !floor_raise;
          t.crash_event = e.id;
          t.crash_scene = scenes.empty() ? -1 : std::int64_t(scenes[0]);
          break;
        case Outcome::Dropped:
          t.dropped_fragments++;
          t.points_dropped += e.points;
          for (auto sc : scenes) batch.lost_points[sc] = true;
          break;
      }
      if (closes_batch[i] && t.crashes == 0) end_batch(t, batch, grad);
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace oomscope::sim
