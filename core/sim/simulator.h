#pragma once
// The split-and-retry simulator: the decision tree of docs/simulator-model.md, one attempt per step.
//
//   Simulator sim(config);          // throws oomscope::Error for a bad config or sizes file
//   while (sim.step()) { ... sim.log().events.back() ... }
//   sim.step_back();                // undoes the last step exactly (log, queue, counters)
//   sim.run_to_end(stop_token);     // headless
//
// A step pops one fragment from the FIFO queue and attempts it; a failed attempt re-queues its pieces
// (one per scene, or two spatial halves) and also logs any half dropped under the floor, in the same step.
// The first step of a batch starts it, the step that empties the queue ends it with the optimizer step.
// After a crash (a bug under `oom-only`) the run is finished.
//
// No point is ever materialised: a scene's points are a point process (scene_layout.h), and a spatial
// fragment is a cell of it with a point count and a random stream of its own, refined lazily by each split,
// so an attempt costs O(clusters) whatever the fragment's size. Stepping back replays the current batch from
// its start (the run is a pure function of the config), which is what makes the restored state exact.
//
// Not thread-safe; one simulator per thread. The GUI runs it on a worker and copies what it shows.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <vector>

#include "core/sim/config.h"
#include "core/sim/event.h"

namespace oomscope::sim {

// A fragment waiting in the queue (for the GUI's queue view).
struct PendingFragment {
  std::int64_t parent = -1;
  Origin origin = Origin::Batch;
  std::int64_t points = 0;
  std::int64_t first_scene = -1;  // global id of its (first) scene
  std::int64_t scene_count = 0;
  bool split_on_x = true;  // the reference's flag: the next alternate-xy split is on x
};

// What the memory gauge shows.
struct MemoryGauge {
  std::int64_t budget = 0;
  std::int64_t fragmented = 0;   // unusable after the last OOM until an attempt succeeds
  std::int64_t last_needed = 0;  // bytes_needed of the latest attempt (0 before the first)
  Outcome last_outcome = Outcome::Ok;
};

// The most fragments one batch may have waiting in the queue (about 600 MiB). A batch that needs more (a
// bug or a budget below the fixed bytes bisecting 100,000,000-point scenes down to a floor of 0) stops the
// run with an oomscope::Error that says so, instead of exhausting memory.
inline constexpr std::size_t kMaxQueuedFragments = 8'000'000;

// Receives every event once, when the step that made it is complete (for streaming a trace).
using EventSink = std::function<void(const Event& event, std::span<const std::uint32_t> scenes)>;

class Simulator {
 public:
  // Validates the config and, for a File source, reads the sizes file (errors name file and line).
  explicit Simulator(SimConfig config);
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  const SimConfig& config() const;
  // Points per scene, by global scene id.
  std::span<const std::int64_t> scene_sizes() const;

  // One step. Returns false (and changes nothing) when the run is finished.
  bool step();
  // Undoes the last step. Returns false at the start, and once the log stopped keeping events.
  // Counters, queue and log equal what they were.
  bool step_back();
  // Steps until finished or `max_steps` steps were taken; returns the number taken.
  std::int64_t run(std::int64_t max_steps);
  // Steps until finished. Throws oomscope::Cancelled when stop is requested (checked every 4096 steps).
  void run_to_end(const std::stop_token& stop = {});
  // Back to the initial state (log cleared).
  void reset();

  // Memory. By default every event is kept in log() (the GUI and tests step through them). With
  // keep_events(n), n >= 0, the log stops growing once it holds n events (at a step boundary): later events
  // are kept only for the length of their step (last_step_events()), stepping back stops where the log
  // stopped, and memory stays bounded by the queue of one batch. Call before the first step.
  void keep_events(std::int64_t n);
  // Every event goes to the sink once its step is complete (whether or not the log keeps it).
  void set_event_sink(EventSink sink);
  // True while log() holds every event of the run so far.
  bool log_complete() const;
  // Events made so far, kept or not.
  std::int64_t events_made() const;
  // Lowers (or raises) kMaxQueuedFragments for this simulator (tests).
  void set_queue_limit(std::size_t fragments);

  bool finished() const;
  bool crashed() const;
  std::int64_t steps_taken() const;
  // Total number of batches the run has (epochs x batches per epoch).
  std::int64_t batch_count() const;

  const EventLog& log() const;
  // Events of the last step (empty at the start).
  std::span<const Event> last_step_events() const;
  const Totals& totals() const;
  // The lazy-fix and micro-batch baselines for this run's scenes (computed once, independent of stepping).
  const Baselines& baselines() const;

  std::vector<PendingFragment> pending() const;
  MemoryGauge memory() const;
  // Global scene ids of a batch (in the order they are stacked).
  std::vector<std::int64_t> batch_scenes(std::int64_t batch) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The bytes and simulated nanoseconds of one attempt; shared with the baselines so that every schedule is
// priced by the same model.
std::int64_t attempt_bytes(const MemoryModel& m, std::int64_t points);
std::int64_t ok_attempt_ns(const TimeModel& t, std::int64_t points);

}  // namespace oomscope::sim
