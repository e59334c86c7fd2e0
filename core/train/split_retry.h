#pragma once
// Split-and-retry on real tensors: the decision tree of docs/simulator-model.md with the simulator's toggles.
// One call of run_batch() empties one batch's FIFO queue and ends with the optimizer step; every attempt
// (and every dropped fragment) becomes one event of the simulator's trace format, with its measured wall
// time and peak bytes.
//
// Catch modes are typed, never string matching: `oom-only` catches c10::OutOfMemoryError only,
// `runtime-error` catches what Python reports as RuntimeError (c10::Error and std::runtime_error; the
// reference's earlier `except RuntimeError`, which still swallows a shape mismatch but not the NaN-loss
// check, a NonFiniteLoss like Python's FloatingPointError), `everything` catches any std::exception (the
// reference's `except Exception`). The failed fragment's tensors are locals of the
// attempt, destroyed while the exception unwinds, so they are freed before the handler runs; the split and
// re-queue happen after the handler has returned, outside its frame.
//
// Torch-free: the model is behind AttemptRunner (implemented with LibTorch in torch_model.h's factory).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/sim/config.h"
#include "core/sim/event.h"
#include "core/sim/trace_writer.h"
#include "core/train/fragment.h"
#include "core/train/train_observer.h"

namespace oomscope::train {

// The simulator's toggles, with the simulator's presets (sim::preset_original / preset_corrected):
// catch, grad, split, axis, floor, on_floor. `norm` is carried into the trace header only: the demo model
// has no normalisation layer.
using RetryPolicy = sim::Policy;

inline RetryPolicy policy_original() { return sim::preset_original(); }
inline RetryPolicy policy_corrected() { return sim::preset_corrected(); }
inline std::optional<RetryPolicy> policy_by_name(std::string_view name) { return sim::preset_by_name(name); }

// The model side of an attempt. Implementations throw whatever the model throws.
class AttemptRunner {
 public:
  virtual ~AttemptRunner() = default;
  // Clears the parameters' gradients (the reference's zero_grad() at the top of every attempt).
  virtual void zero_grad() = 0;
  // Materialises the fragment as tensors, forward, loss x loss_scale, backward into the parameters'
  // gradients. Returns the unscaled mean loss. Every tensor it made is freed when it returns or throws.
  virtual double attempt(const HostFragment& fragment, double loss_scale) = 0;
  // Accumulate mode: adds the current gradients to the batch's accumulator (after an ok attempt).
  virtual void keep_gradient() = 0;
  // Accumulate mode, before the step: gradients = accumulator x factor; the accumulator is cleared.
  virtual void load_accumulated(double factor) = 0;
  virtual void optimizer_step() = 0;
};

// Thrown under on-floor `raise` when a half at or under the floor would be dropped (written as a `crash`
// event for that half, as the simulator does).
class FloorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The loss check's error: not a RuntimeError (Python raises FloatingPointError), so only `everything`
// swallows it.
class NonFiniteLoss : public std::exception {
 public:
  explicit NonFiniteLoss(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// What survives a restart: counters and clocks of the loop (saved in checkpoints).
struct LoopState {
  std::int64_t next_event = 0;
  std::int64_t next_step = 0;      // loop iterations (trace `step`)
  std::int64_t elapsed_ns = 0;     // measured run time before this process
  std::int64_t ok_cpu_ns = 0;      // CPU time of the training thread in ok attempts
  std::int64_t failed_cpu_ns = 0;  // ... in failed ones, including their clean-up (the retry overhead)
  sim::Totals totals;
};

class SplitRetryLoop {
 public:
  // trace and observer may be null. budget is written into every event (0: unlimited).
  SplitRetryLoop(RetryPolicy policy, AttemptRunner& runner, sim::TraceWriter* trace, TrainObserver* observer,
                 std::int64_t budget, LoopState state = {});

  // Runs one batch through its optimizer step. An exception the policy does not catch is written as a
  // `crash` event (totals updated) and rethrown; so is FloorError.
  StepReport run_batch(HostFragment batch, std::int64_t batch_index, std::int64_t epoch);

  // Marks an epoch finished (totals.epochs_done).
  void epoch_done() { state_.totals.epochs_done++; }
  // Counters and clocks now (elapsed includes the current process).
  LoopState state() const;
  const RetryPolicy& policy() const { return policy_; }

 private:
  struct Batch;
  void emit(const HostFragment& f, sim::Outcome outcome, Batch& b, AttemptReport& report);
  void drop(const HostFragment& f, Batch& b, bool unsplittable);
  void requeue_split(HostFragment&& failed, std::int64_t event_id, Batch& b);

  RetryPolicy policy_;
  AttemptRunner& runner_;
  sim::TraceWriter* trace_;
  TrainObserver* observer_;
  std::int64_t budget_;
  LoopState state_;
  std::int64_t clock_origin_ns_ = 0;  // steady clock at construction, minus the saved elapsed time
  sim::EventLog scratch_;             // one event's scene ids for the writer
};

}  // namespace oomscope::train
