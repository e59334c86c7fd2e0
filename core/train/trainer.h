#pragma once
// The demo trainer's run: synthetic clustered scenes (core/sim's generator), batches in core/sim's epoch
// order, the split-and-retry loop on the LibTorch model, a trace in the simulator's format, atomic
// checkpoints, resume and restart. Torch-free header; the app's main parses options into TrainerOptions,
// attaches an observer and calls run_trainer().

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/sim/config.h"
#include "core/sim/event.h"
#include "core/sim/model_file.h"
#include "core/train/split_retry.h"
#include "core/train/torch_model.h"
#include "core/train/train_observer.h"

namespace oomscope::train {

struct TrainerOptions {
  // Scenes: generated like the simulator's (dist, count, seed) or read from a sizes file.
  sim::SizeDist dist = sim::SizeDist::Uniform;
  std::int64_t scenes = 8;
  std::string sizes_file;
  std::int64_t batch = 4;
  std::int64_t epochs = 1;
  std::int64_t steps = 0;  // optimizer steps (batches) to run; 0: every batch of every epoch
  std::uint64_t seed = 1;
  // Bytes; 0: no limit. The default plays the simulator's default (4 GiB for 12 KiB per point and 1.5 GiB
  // fixed: a scene fits up to ~218,000 points) for the default model (~900 bytes per point).
  std::int64_t budget = 192LL << 20;
  RetryPolicy policy = policy_original();
  ModelConfig model;  // init_seed, scene_seed, fault are set from seed and the bug options
  sim::BugKind bug = sim::BugKind::None;
  std::int64_t bug_scene = -1;
  std::string trace_path;
  std::string checkpoint_path;
  std::int64_t checkpoint_every = 0;  // steps; 0: only when restarting
  bool resume = false;
  std::int64_t restart_above = 0;  // live bytes at a step boundary; 0: never
  // Asked at each step boundary (after the checkpoints): a reason to checkpoint and restart now (the
  // demo trainer's --checkpoint-before-oom: the OOM forecast), or empty. Unset: never.
  std::function<std::string()> restart_check;
  std::int64_t hold_per_step = 0;  // bytes held after every step until the process ends
  std::int64_t leak_per_step = 0;  // bytes of each step's tensors kept alive (a leak; torch_model.h)
  std::string weights_out;         // the final weights as raw float32 (for bitwise comparison)
  // The calibrated model file (docs/sim-model-format.md) whose figures go into the trace header for the
  // simulator's prediction; without one the trainer measures its memory figures at start-up.
  std::string model_file;
};

// Exit codes as the CLI's: 0 done, 1 bad input, 4 the run crashed (an exception the policy did not catch,
// or on-floor raise).
struct TrainerResult {
  int exit_code = 0;
  sim::Totals totals;
  std::string error;
};

// Restarts the process (execv); only returns when that failed.
using RestartFn = std::function<void()>;

// Runs the options. Prints what it does to `log`. Errors in the input (sizes file, checkpoint) are
// returned with exit code 1 and a message naming the file. `restart` is called after the checkpoint when
// live bytes cross restart_above.
TrainerResult run_trainer(const TrainerOptions& options, TrainObserver* observer, std::ostream& log,
                          const RestartFn& restart);

// The trace header's `config` (docs/sim-trace-format.md, "Writing one from a real trainer"): the run as a
// simulator configuration (config_to_json), the calibrated figures as `model`, and free-form `trainer`.
nlohmann::json trainer_config_json(const TrainerOptions& options, const std::vector<std::int64_t>& sizes,
                                   const sim::CalibratedModel& figures, const std::string& model_description);

// Scene sizes for the options: generated or read (throws oomscope::Error naming the sizes file).
std::vector<std::int64_t> trainer_scene_sizes(const TrainerOptions& options);

}  // namespace oomscope::train
