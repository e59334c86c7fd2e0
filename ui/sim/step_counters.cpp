#include "ui/sim/step_counters.h"

#include <algorithm>
#include <unordered_map>

#include "core/sim/simulator.h"

namespace oomscope::ui {

using sim::Event;
using sim::Origin;
using sim::Outcome;

std::vector<std::uint32_t> stepBoundaries(const sim::EventLog& log) {
  std::vector<std::uint32_t> ends{0};
  const auto& ev = log.events;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (i + 1 == ev.size() || ev[i + 1].step != ev[i].step) ends.push_back(std::uint32_t(i + 1));
  return ends;
}

namespace {

// The open batch: which scenes trained how many points, for the optimizer-step counters.
struct BatchState {
  std::unordered_map<std::uint32_t, std::int64_t> okPoints;  // scene -> points trained
  std::unordered_map<std::uint32_t, bool> lostPoints;        // scene -> some of its points were dropped
  std::int64_t points = 0, okPointsSum = 0, okAttempts = 0;
  // What the batch's last attempt left after its zero_grad(): nothing when it failed.
  std::int64_t lastAttemptPoints = 0, lastAttemptScenes = 0;
};

void endBatch(sim::Totals& t, const BatchState& b, std::optional<sim::GradMode> grad) {
  if (grad == sim::GradMode::Accumulate) {
    t.points_applied += b.okPointsSum;
    for (const auto& [scene, pts] : b.okPoints) t.scenes_applied += pts > 0;
    t.renormalised_steps += b.okPointsSum > 0 && b.okPointsSum < b.points;
  } else if (grad == sim::GradMode::LastFragment) {
    t.points_applied += b.lastAttemptPoints;
    t.scenes_applied += b.lastAttemptScenes;
    t.discarded_gradients += b.okAttempts - (b.lastAttemptPoints > 0 ? 1 : 0);
  }
  for (const auto& [scene, pts] : b.okPoints) {
    t.scenes_dropped += pts == 0;
    const auto lost = b.lostPoints.find(scene);
    t.scenes_partially_dropped += pts > 0 && lost != b.lostPoints.end() && lost->second;
  }
  t.optimizer_steps++;
}

}  // namespace

std::vector<sim::Totals> deriveStepTotals(const sim::EventLog& log, const std::vector<std::uint32_t>& stepEnd,
                                          std::optional<sim::GradMode> grad, const sim::TimeModel* time) {
  const auto& ev = log.events;
  // The last event of each batch closes it (unless the run crashed there).
  std::vector<bool> closesBatch(ev.size(), false);
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (i + 1 == ev.size() || ev[i + 1].parent < 0) closesBatch[i] = true;

  std::vector<sim::Totals> out;
  out.reserve(stepEnd.size());
  sim::Totals t;
  out.push_back(t);
  BatchState batch;
  std::size_t i = 0;
  for (std::size_t s = 1; s < stepEnd.size(); ++s) {
    for (; i < stepEnd[s] && i < ev.size(); ++i) {
      const Event& e = ev[i];
      const auto scenes = log.scenes(e);
      if (e.parent < 0) {
        batch = BatchState{};
        for (auto sc : scenes) batch.okPoints[sc] = 0;
        t.batches++;
        t.scenes += std::int64_t(scenes.size());
        t.points += e.points;
        batch.points = e.points;
        if (time) t.oom_free_time_ns += sim::ok_attempt_ns(*time, e.points);
      }
      t.time_ns = std::max(t.time_ns, e.start_ns + e.duration_ns);
      // A crash with no bytes needed was raised at the floor (--on-floor raise), without a forward pass.
      const bool floorRaise = e.outcome == Outcome::Crash && e.bytes_needed == 0;
      if (e.outcome != Outcome::Dropped && !floorRaise) {
        t.attempts++;
        t.retries += e.parent >= 0;
        batch.lastAttemptPoints = e.outcome == Outcome::Ok ? e.points : 0;
        batch.lastAttemptScenes = e.outcome == Outcome::Ok ? std::int64_t(scenes.size()) : 0;
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
          for (auto sc : scenes) batch.okPoints[sc] += scenes.size() == 1 ? e.points : 1;
          batch.okPointsSum += e.points;
          batch.okAttempts++;
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
          t.floor_raised += floorRaise;
          t.wasted_forward_passes += !floorRaise;
          t.crash_event = e.id;
          t.crash_scene = scenes.empty() ? -1 : std::int64_t(scenes[0]);
          break;
        case Outcome::Dropped:
          t.dropped_fragments++;
          t.points_dropped += e.points;
          for (auto sc : scenes) batch.lostPoints[sc] = true;
          break;
      }
      if (closesBatch[i] && t.crashes == 0) endBatch(t, batch, grad);
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace oomscope::ui
