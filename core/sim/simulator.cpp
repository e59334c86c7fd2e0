// Simulator: run control (steps, batches, stepping back by replay). The attempt itself is in
// simulator_attempt.cpp.

#include <algorithm>
#include <cmath>

#include "core/sim/detail/simulator_impl.h"
#include "core/sim/scene.h"
#include "core/sim/sizes_file.h"
#include "core/util/error.h"

namespace oomscope::sim {

std::int64_t attempt_bytes(const MemoryModel& m, std::int64_t points) {
  return m.fixed_bytes + m.bytes_per_point * points;
}

std::int64_t ok_attempt_ns(const TimeModel& t, std::int64_t points) {
  // In double: picoseconds x points can leave int64 for absurd batches; the result stays well inside it.
  const double ps = double(t.forward_ps_per_point + t.backward_ps_per_point) * double(points);
  return t.fixed_ns_per_attempt + static_cast<std::int64_t>(std::llround(ps / 1000.0));
}

Simulator::Impl::Impl(SimConfig c) : config(std::move(c)) {
  validate(config);
  auto& src = config.scenes;
  if (src.dist == SizeDist::File) {
    if (src.sizes.empty()) src.sizes = read_scene_sizes(src.sizes_file);
    if (src.count == 0) src.count = static_cast<std::int64_t>(src.sizes.size());
    if (src.count > static_cast<std::int64_t>(src.sizes.size()))
      throw Error(ErrorKind::InvalidArgument, src.sizes_file,
                  "holds " + std::to_string(src.sizes.size()) + " scene sizes, " + std::to_string(src.count) +
                      " scenes were asked for");
    sizes.assign(src.sizes.begin(), src.sizes.begin() + src.count);
    validate(config);  // the bug scene against the count now known
  } else {
    sizes = generate_scene_sizes(src.dist, src.count, config.seed);
  }
  batches_per_epoch = (src.count + config.batch - 1) / config.batch;
  batch_count = batches_per_epoch * config.epochs;
  if (config.max_batches > 0) batch_count = std::min(batch_count, config.max_batches);
  init_run();
}

void Simulator::Impl::init_run() {
  log.clear();
  window.clear();
  sealed = false;
  totals = Totals{};
  steps = 0;
  next_id = 0;
  fragmented = 0;
  flushed = false;
  last_needed = 0;
  last_outcome = Outcome::Ok;
  step_first_event.clear();
  checkpoints.clear();
  batch = -1;
  queue.clear();
  head = 0;
}

const std::vector<std::int64_t>& Simulator::Impl::epoch_scenes(std::int64_t epoch) const {
  if (order_epoch != epoch) {
    order = epoch_order(config.scenes.count, config.seed, epoch);
    order_epoch = epoch;
  }
  return order;
}

std::vector<std::int64_t> Simulator::Impl::scenes_of_batch(std::int64_t b) const {
  if (b < 0 || b >= batch_count) return {};
  const auto& o = epoch_scenes(b / batches_per_epoch);
  const std::int64_t first = (b % batches_per_epoch) * config.batch;
  const std::int64_t last = std::min<std::int64_t>(first + config.batch, config.scenes.count);
  return {o.begin() + first, o.begin() + last};
}

void Simulator::Impl::begin_batch(std::int64_t b) {
  if (!sealed)
    checkpoints.push_back(BatchCheckpoint{steps, static_cast<std::int64_t>(log.events.size()),
                                          log.scene_ids.size(), totals, fragmented, flushed, last_needed,
                                          last_outcome});
  batch = b;
  const auto& o = epoch_scenes(b / batches_per_epoch);
  const std::int64_t first = (b % batches_per_epoch) * config.batch;
  const std::int64_t last = std::min<std::int64_t>(first + config.batch, config.scenes.count);
  const auto n = static_cast<std::size_t>(last - first);
  slot_scene.assign(o.begin() + first, o.begin() + last);
  slot_points.resize(n);
  slot_layout.assign(n, std::nullopt);
  slot_ok.assign(n, 0);
  slot_dropped.assign(n, 0);
  bug_slot = -1;
  std::int64_t total_points = 0;
  Bbox box;
  for (std::size_t s = 0; s < n; ++s) {
    slot_points[s] = sizes[static_cast<std::size_t>(slot_scene[s])];
    total_points += slot_points[s];
    box.include(scene_room(slot_scene[s], config.seed));
    if (config.fault.kind != BugKind::None && slot_scene[s] == config.fault.scene)
      bug_slot = static_cast<std::int64_t>(s);
  }
  batch_ok_attempts = last_attempt_points = last_attempt_scenes = 0;
  batch_points = total_points;
  queue.clear();
  head = 0;
  Frag f;
  f.points = total_points;
  f.slot_count = static_cast<std::uint32_t>(n);
  f.box = box;
  queue.push_back(f);

  totals.batches++;
  totals.scenes += static_cast<std::int64_t>(n);
  totals.points += total_points;
  totals.oom_free_time_ns += ok_attempt_ns(config.time, total_points);
}

void Simulator::Impl::end_batch() {
  // optimizer.step(): what reached it depends on whether each fragment's gradient was kept.
  if (config.policy.grad == GradMode::Accumulate) {
    std::int64_t applied = 0;
    for (std::size_t s = 0; s < slot_ok.size(); ++s) {
      applied += slot_ok[s];
      totals.scenes_applied += slot_ok[s] > 0;
    }
    totals.points_applied += applied;
    // The scales (share of the batch) of what trained sum to applied / batch points: the step divides by
    // that sum, so the update is the mean over the points that trained.
    totals.renormalised_steps += applied > 0 && applied < batch_points;
  } else {
    // zero_grad() before every attempt: only the last attempt's gradient is left, none if it failed.
    totals.points_applied += last_attempt_points;
    totals.scenes_applied += last_attempt_scenes;
    totals.discarded_gradients += batch_ok_attempts - (last_attempt_points > 0 ? 1 : 0);
  }
  for (std::size_t s = 0; s < slot_ok.size(); ++s) {
    totals.scenes_dropped += slot_ok[s] == 0;
    totals.scenes_partially_dropped += slot_ok[s] > 0 && slot_dropped[s] > 0;
  }
  totals.optimizer_steps++;
  if ((batch + 1) % batches_per_epoch == 0) totals.epochs_done++;
}

bool Simulator::Impl::step() {
  if (finished()) return false;
  if (!sealed && keep >= 0 && static_cast<std::int64_t>(log.events.size()) >= keep) sealed = true;
  if (sealed)
    window.clear();
  else
    step_first_event.push_back(static_cast<std::int64_t>(log.events.size()));
  const EventLog& out = target();
  const std::size_t first = out.events.size();
  if (queue_empty()) begin_batch(batch + 1);
  if (head >= 65536 && head * 2 >= queue.size()) {
    // Consumed fragments go: the queue holds what waits, not the batch's history.
    queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
  const Frag f = queue[head++];
  attempt(f);
  if (queue_empty() && totals.crashes == 0) end_batch();
  ++steps;
  if (sink)
    for (std::size_t i = first; i < out.events.size(); ++i) sink(out.events[i], out.scenes(out.events[i]));
  return true;
}

Simulator::Simulator(SimConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

const SimConfig& Simulator::config() const { return impl_->config; }
std::span<const std::int64_t> Simulator::scene_sizes() const { return impl_->sizes; }
bool Simulator::step() { return impl_->step(); }

bool Simulator::step_back() {
  Impl& s = *impl_;
  if (s.steps == 0 || s.sealed) return false;
  const std::int64_t target = s.steps - 1;
  const BatchCheckpoint cp = s.checkpoints.back();
  s.checkpoints.pop_back();
  s.log.events.resize(static_cast<std::size_t>(cp.first_event));
  s.log.scene_ids.resize(cp.first_scene_id);
  s.step_first_event.resize(static_cast<std::size_t>(cp.first_step));
  s.totals = cp.totals;
  s.fragmented = cp.fragmented;
  s.flushed = cp.flushed;
  s.last_needed = cp.last_needed;
  s.last_outcome = cp.last_outcome;
  s.next_id = cp.first_event;
  s.steps = cp.first_step;
  // Back to the end of the previous batch (its queue is empty, so its points are not needed) ...
  s.batch--;
  s.queue.clear();
  s.head = 0;
  // ... then replay this batch up to the target: the run is deterministic, so this restores the queue
  // and the counters exactly.
  EventSink sink = std::move(s.sink);  // replayed events were delivered already
  s.sink = nullptr;
  while (s.steps < target) s.step();
  s.sink = std::move(sink);
  return true;
}

std::int64_t Simulator::run(std::int64_t max_steps) {
  std::int64_t taken = 0;
  while (taken < max_steps && impl_->step()) ++taken;
  return taken;
}

void Simulator::run_to_end(const std::stop_token& stop) {
  for (;;) {
    for (int i = 0; i < 4096; ++i)
      if (!impl_->step()) return;
    if (stop.stop_requested()) throw Cancelled();
  }
}

void Simulator::reset() { impl_->init_run(); }
void Simulator::keep_events(std::int64_t n) { impl_->keep = n; }
void Simulator::set_event_sink(EventSink sink) { impl_->sink = std::move(sink); }
bool Simulator::log_complete() const { return !impl_->sealed; }
std::int64_t Simulator::events_made() const { return impl_->next_id; }
void Simulator::set_queue_limit(std::size_t fragments) { impl_->max_queued = fragments; }
bool Simulator::finished() const { return impl_->finished(); }
bool Simulator::crashed() const { return impl_->totals.crashes > 0; }
std::int64_t Simulator::steps_taken() const { return impl_->steps; }
std::int64_t Simulator::batch_count() const { return impl_->batch_count; }
const EventLog& Simulator::log() const { return impl_->log; }
const Totals& Simulator::totals() const { return impl_->totals; }

std::span<const Event> Simulator::last_step_events() const {
  if (impl_->steps == 0) return {};
  if (impl_->sealed) return impl_->window.events;
  const auto first = static_cast<std::size_t>(impl_->step_first_event.back());
  return std::span<const Event>(impl_->log.events).subspan(first);
}

const Baselines& Simulator::baselines() const {
  if (!impl_->baselines) impl_->baselines = compute_baselines(impl_->config, impl_->sizes);
  return *impl_->baselines;
}

std::vector<PendingFragment> Simulator::pending() const {
  std::vector<PendingFragment> out;
  const Impl& s = *impl_;
  for (std::size_t i = s.head; i < s.queue.size(); ++i) {
    const Frag& f = s.queue[i];
    out.push_back(PendingFragment{f.parent, f.origin, f.points, s.slot_scene[f.slot_begin], f.slot_count,
                                  f.split_on_x});
  }
  return out;
}

MemoryGauge Simulator::memory() const {
  return MemoryGauge{impl_->config.memory.budget, impl_->fragmented, impl_->last_needed, impl_->last_outcome};
}

std::vector<std::int64_t> Simulator::batch_scenes(std::int64_t b) const { return impl_->scenes_of_batch(b); }

}  // namespace oomscope::sim
