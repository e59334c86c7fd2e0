#pragma once
// `--checkpoint-before-oom N`: the demo trainer acts on the OOM forecast itself, as the MPS reference did by
// hand. At every optimizer step the guard adds the step's figures (the budgeted allocator's live and peak
// bytes, the step; the budget as the capacity: what the trainer's live agent serves) to a live Store of its
// own and forecasts with the debugger's model (core/live/client/forecast.h). When the forecast names an OOM
// within N steps, reason() says so in one sentence; the trainer (TrainerOptions::restart_check) then writes
// its checkpoint and re-executes itself with --resume, which frees what the run leaked.

#include <cstdint>
#include <string>

#include "core/live/client/store.h"
#include "core/train/train_observer.h"

namespace oomscope::demo {

class ForecastGuard final : public train::TrainObserver {
 public:
  ForecastGuard(std::int64_t budget_bytes, std::int64_t within_steps);

  void step_finished(const train::StepReport& step) override;
  // The forecast OOM within the steps, in one sentence ("OOM forecast at step 240 ... [derived]"), or
  // empty. Cleared when read.
  std::string take_reason();

 private:
  live::Store store_;
  std::int64_t within_;
  std::string reason_;
};

}  // namespace oomscope::demo
