#pragma once
// Command-line options of oomscope-demo-trainer.

#include <CLI/App.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/train/trainer.h"

namespace oomscope::demo {

struct Options {
  train::TrainerOptions trainer;
  bool calibrate = false;
  std::string calibrate_out;  // --calibrate FILE (or --out FILE)
  std::vector<std::int64_t> calibrate_points = {2000, 8000, 16000, 32000};
  bool quiet = false;   // steps only, no attempt lines
  std::string serve;    // --serve PORT|HOST:PORT|unix:PATH: live stats (app/demo-trainer/live_serve.h)
  std::string metrics;  // --metrics-port PORT|HOST:PORT: Prometheus /metrics beside the live stats
  std::string job;      // --job NAME: the /metrics `job` label
  // --checkpoint-before-oom N: checkpoint and restart when the OOM forecast (core/live/client/forecast.h,
  // over the trainer's own step figures) names an OOM within N steps; 0: never.
  std::int64_t checkpoint_before_oom = 0;
};

// Reads the options as given (name, then value; flags alone), in order. Throws UsageError.
Options parse_options(const std::vector<std::string>& args);

// Defines the options with CLI11 (help text, unknown options, missing values); each one given is appended to
// `given` as parse_options reads it.
void define_options(CLI::App& app, std::vector<std::string>& given);

struct UsageError {
  std::string message;
};

}  // namespace oomscope::demo
