#pragma once
// Command-line options of oomscope-demo-trainer.

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
  bool help = false;
};

// Throws UsageError.
Options parse_options(const std::vector<std::string>& args);

struct UsageError {
  std::string message;
};

extern const char* const kUsage;

}  // namespace oomscope::demo
