#pragma once
// The alternatives to split-and-retry the simulator prices for the same run: a static batch small enough for
// the largest scene, and fixed micro-batches (baselines.cpp).

#include <cstdint>
#include <span>

#include "core/sim/config.h"

namespace oomscope::sim {

// One alternative training schedule for the same scenes and epochs.
struct BaselineResult {
  bool feasible = false;  // false when even one scene alone exceeds the budget
  std::int64_t scenes_per_attempt = 0;
  std::int64_t accumulation = 1;  // attempts per optimizer step
  std::int64_t attempts = 0;
  std::int64_t oom_attempts = 0;  // attempts that exceed the budget anyway (only when infeasible)
  std::int64_t optimizer_steps = 0;
  std::int64_t time_ns = 0;
  double mean_utilisation = 0;  // mean bytes_needed / budget over attempts
  double peak_utilisation = 0;
  friend bool operator==(const BaselineResult&, const BaselineResult&) = default;
};

struct Baselines {
  // A static batch small enough for that many copies of the largest scene: one step per attempt, so more,
  // smaller optimizer steps than the configured batch.
  BaselineResult lazy_fix;
  // Fixed micro-batches of batch/accumulation scenes, the smallest accumulation at which every
  // micro-batch of the run fits, one optimizer step per original batch.
  BaselineResult micro_batch;
  friend bool operator==(const Baselines&, const Baselines&) = default;
};

// Baselines for the run `config` describes, with scene_sizes[id] points in scene id (epoch orders as the
// simulator draws them).
Baselines compute_baselines(const SimConfig& config, std::span<const std::int64_t> scene_sizes);

}  // namespace oomscope::sim
