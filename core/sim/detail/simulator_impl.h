#pragma once
// Internal state of Simulator (not part of the API; included by simulator.cpp and simulator_attempt.cpp
// only).

#include <optional>
#include <vector>

#include "core/sim/scene_layout.h"
#include "core/sim/simulator.h"

namespace oomscope::sim {

// A queued fragment. Whole scenes and batches are described by their scene slots only; a spatial
// fragment is a cell of its scene's point process (box, point count and `key`, its random stream).
struct Frag {
  std::int64_t parent = -1;
  std::int64_t points = 0;
  std::uint64_t key = 0;
  std::uint32_t slot_begin = 0, slot_count = 0;
  std::int32_t depth = 0;
  Bbox box;
  float split_value = 0;
  std::int8_t axis = -1;
  Origin origin = Origin::Batch;
  bool split_on_x = true;
  bool stalled = false;      // made by a split that separated nothing
  bool under_floor = false;  // kept although at or under the floor (--on-floor keep)
};

// What must be restored to step back to the start of a batch.
struct BatchCheckpoint {
  std::int64_t first_step = 0;
  std::int64_t first_event = 0;
  std::size_t first_scene_id = 0;
  Totals totals;
  std::int64_t fragmented = 0;
  bool flushed = false;
  std::int64_t last_needed = 0;
  Outcome last_outcome = Outcome::Ok;
};

struct Simulator::Impl {
  SimConfig config;
  std::vector<std::int64_t> sizes;
  std::int64_t batches_per_epoch = 0;
  std::int64_t batch_count = 0;
  mutable std::optional<Baselines> baselines;

  // Epoch order cache (scene ids of one epoch).
  mutable std::int64_t order_epoch = -1;
  mutable std::vector<std::int64_t> order;

  // Retention: keep < 0 keeps every event; otherwise the log is sealed once it holds `keep` events, and
  // later events live in `window` for the length of their step only.
  std::int64_t keep = -1;
  bool sealed = false;
  EventLog window;
  EventSink sink;

  // Run state.
  EventLog log;
  Totals totals;
  std::int64_t steps = 0;
  std::int64_t next_id = 0;
  std::int64_t fragmented = 0;
  bool flushed = false;  // empty_cache() ran since the last successful attempt
  std::int64_t last_needed = 0;
  Outcome last_outcome = Outcome::Ok;
  std::vector<std::int64_t> step_first_event;  // per step taken while the log is not sealed
  std::vector<BatchCheckpoint> checkpoints;    // per batch started while the log is not sealed

  // Current batch.
  std::int64_t batch = -1;
  std::int64_t batch_points = 0;
  std::vector<std::int64_t> slot_scene;
  std::vector<std::int64_t> slot_points;
  std::vector<std::optional<SceneLayout>> slot_layout;  // made at the scene's first spatial split
  std::vector<std::int64_t> slot_ok;
  std::vector<std::int64_t> slot_dropped;
  std::int64_t bug_slot = -1;
  std::int64_t batch_ok_attempts = 0;
  // What the last attempt of the batch left for optimizer.step() under last-fragment: zero_grad() runs
  // before every attempt, so a failed last attempt leaves nothing.
  std::int64_t last_attempt_points = 0;
  std::int64_t last_attempt_scenes = 0;
  std::vector<Frag> queue;
  std::size_t head = 0;
  std::size_t max_queued = kMaxQueuedFragments;

  explicit Impl(SimConfig c);
  void init_run();
  const std::vector<std::int64_t>& epoch_scenes(std::int64_t epoch) const;
  std::vector<std::int64_t> scenes_of_batch(std::int64_t b) const;
  bool queue_empty() const { return head == queue.size(); }
  bool finished() const { return totals.crashes > 0 || (queue_empty() && batch + 1 >= batch_count); }
  EventLog& target() { return sealed ? window : log; }

  bool step();
  void begin_batch(std::int64_t b);
  void end_batch();
  void attempt(Frag f);
  void split_spatial(const Frag& f, std::int64_t parent_event);
  Event& emit(const Frag& f, Outcome outcome);
  void drop(const Frag& f, bool unsplittable);
  void raise_at_floor(const Frag& f);
  void enqueue(const Frag& f);
};

}  // namespace oomscope::sim
