#pragma once
// What the split-and-retry loop and the trainer report as they go: one observer interface, torch-free, so
// that a live view (a server, a progress printer, a test) can watch a real run without LibTorch's headers.
// Every callback runs on the training thread, between attempts; keep them short. Allocator figures are
// read with allocator_stats() (budget_allocator.h).

#include <cstdint>
#include <string>

#include "core/sim/event.h"

namespace oomscope::train {

struct AttemptReport {
  std::int64_t event_id = 0;  // the trace event of this attempt
  std::int64_t step = 0;      // loop iteration (trace `step`)
  std::int64_t batch = 0;     // batch index over the run
  std::int32_t depth = 0;
  sim::Origin origin = sim::Origin::Batch;
  sim::Outcome outcome = sim::Outcome::Ok;
  std::int64_t points = 0;
  std::int64_t bytes_needed = 0;  // ok: peak live bytes during the attempt; oom: live + refused request
  std::int64_t peak_bytes = 0;    // peak live bytes during the attempt (also for failures)
  std::int64_t duration_ns = 0;   // measured wall time, including the clean-up before a retry
  std::int64_t cpu_ns = 0;        // CPU time of the training thread in the attempt (robust under load)
  std::int64_t available = 0;     // budget minus live bytes when the attempt started
  double loss_scale = 1;          // the factor its loss was scaled by (share of the batch under accumulate)
  double loss = 0;                // ok attempts only
  std::string error;              // the caught exception's message (oom, bug, crash)
};

struct StepReport {
  std::int64_t batch = 0;           // the batch whose optimizer step this was
  std::int64_t points = 0;          // points in the batch
  std::int64_t points_applied = 0;  // points whose gradient reached optimizer.step()
  std::int64_t attempts = 0;
  std::int64_t ooms = 0;
  double loss = 0;  // points-weighted mean loss of the ok attempts
  std::int64_t duration_ns = 0;
};

class TrainObserver {
 public:
  virtual ~TrainObserver() = default;
  // A batch is about to be attempted (its first attempt is the whole batch).
  virtual void batch_started(std::int64_t /*batch*/, std::int64_t /*points*/, std::int64_t /*scenes*/) {}
  // Every attempt and every dropped fragment, after the trace line was written.
  virtual void attempt_finished(const AttemptReport& /*attempt*/) {}
  // An attempt ran out of memory (called before attempt_finished for the same attempt).
  virtual void out_of_memory(const AttemptReport& /*attempt*/, std::int64_t /*requested_bytes*/) {}
  // A failed fragment was split: `kind` is "scene" or "spatial", children are the fragments queued.
  virtual void split(std::int64_t /*parent_event*/, const char* /*kind*/, int /*children_queued*/,
                     int /*children_dropped*/) {}
  // optimizer.step() ran for a batch.
  virtual void step_finished(const StepReport& /*step*/) {}
  virtual void checkpoint_written(const std::string& /*path*/, std::int64_t /*next_batch*/) {}
  // Live bytes crossed --restart-above: a checkpoint was written and the process is about to execv.
  virtual void restarting(std::int64_t /*live_bytes*/, std::int64_t /*threshold*/) {}
  // TrainerOptions::restart_check gave a reason (the forecast OOM, in one sentence): a checkpoint was
  // written and the process is about to execv.
  virtual void restarting_before_oom(const std::string& /*why*/) {}
};

}  // namespace oomscope::train
