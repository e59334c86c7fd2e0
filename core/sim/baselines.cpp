#include "core/sim/baselines.h"

// The two usual alternatives to split-and-retry, priced by the same memory and time model on the same
// scenes in the same epoch orders: a static batch small enough for the worst case ("lazy fix"), and fixed
// micro-batches with gradient accumulation (the route docs/simulator-model.md cites: 16 x 4 = 64).

#include <algorithm>
#include <cstdint>

#include "core/sim/scene.h"
#include "core/sim/simulator.h"

namespace oomscope::sim {

namespace {

// Calls visit(points) for every chunk of `chunk` scenes, each original batch of `batch` scenes cut into
// chunks separately (chunk == batch: the batches themselves; batch == 0: chunks across the whole epoch).
template <typename Visit>
void for_each_chunk(const SimConfig& c, std::span<const std::int64_t> sizes, std::int64_t batch,
                    std::int64_t chunk, Visit&& visit) {
  // With max_batches, only the scenes of the batches the run takes.
  std::int64_t left = c.max_batches > 0 ? c.max_batches * c.batch : INT64_MAX;
  for (std::int64_t epoch = 0; epoch < c.epochs && left > 0; ++epoch) {
    const auto order = epoch_order(c.scenes.count, c.seed, epoch);
    const auto n = std::min(static_cast<std::int64_t>(order.size()), left);
    left -= n;
    const std::int64_t group = batch > 0 ? batch : n;
    for (std::int64_t g = 0; g < n; g += group) {
      const std::int64_t g_end = std::min(g + group, n);
      for (std::int64_t i = g; i < g_end; i += chunk) {
        std::int64_t pts = 0;
        for (std::int64_t j = i; j < std::min(i + chunk, g_end); ++j)
          pts += sizes[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])];
        if (!visit(pts)) return;
      }
    }
  }
}

BaselineResult price(const SimConfig& c, std::span<const std::int64_t> sizes, std::int64_t batch,
                     std::int64_t chunk) {
  BaselineResult r;
  r.scenes_per_attempt = chunk;
  double util_sum = 0;
  for_each_chunk(c, sizes, batch, chunk, [&](std::int64_t pts) {
    const std::int64_t bytes = attempt_bytes(c.memory, pts);
    const double util = double(bytes) / double(c.memory.budget);
    r.attempts++;
    r.oom_attempts += bytes > c.memory.budget;
    r.time_ns += ok_attempt_ns(c.time, pts);
    util_sum += util;
    r.peak_utilisation = std::max(r.peak_utilisation, util);
    return true;
  });
  r.mean_utilisation = r.attempts ? util_sum / double(r.attempts) : 0.0;
  r.feasible = r.oom_attempts == 0;
  return r;
}

}  // namespace

Baselines compute_baselines(const SimConfig& c, std::span<const std::int64_t> sizes) {
  Baselines out;
  const std::int64_t count = c.scenes.count;
  const std::int64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.begin() + count);
  const std::int64_t room = c.memory.budget - c.memory.fixed_bytes;
  const std::int64_t per_scene = c.memory.bytes_per_point * std::max<std::int64_t>(largest, 1);

  // Lazy fix: as many copies of the largest scene as fit, never more than the configured batch.
  const std::int64_t lazy = std::clamp<std::int64_t>(room > 0 ? room / per_scene : 0, 1, c.batch);
  out.lazy_fix = price(c, sizes, 0, lazy);
  out.lazy_fix.optimizer_steps = out.lazy_fix.attempts;

  // Micro-batches: the largest micro-batch (smallest accumulation) at which every micro-batch of the run
  // fits; micro-batches of one scene when nothing does.
  std::int64_t micro = 1;
  std::int64_t previous = 0;
  for (std::int64_t k = 1; k <= c.batch; ++k) {
    const std::int64_t m = (c.batch + k - 1) / k;  // the most even cut into k micro-batches
    if (m == previous) continue;
    previous = m;
    bool fits = true;
    for_each_chunk(c, sizes, c.batch, m, [&](std::int64_t pts) {
      fits = attempt_bytes(c.memory, pts) <= c.memory.budget;
      return fits;
    });
    if (fits) {
      micro = m;
      break;
    }
  }
  out.micro_batch = price(c, sizes, c.batch, micro);
  out.micro_batch.accumulation = (c.batch + micro - 1) / micro;
  out.micro_batch.optimizer_steps = c.epochs * ((count + c.batch - 1) / c.batch);
  if (c.max_batches > 0)
    out.micro_batch.optimizer_steps = std::min(out.micro_batch.optimizer_steps, c.max_batches);
  return out;
}

}  // namespace oomscope::sim
