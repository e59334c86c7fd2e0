#pragma once
// Calibration: measures the demo model's memory and time per attempt on real tensors, so that the
// simulator's linear models (bytes = fixed + per point x points, time likewise) predict a real run.
// The result is written as the simulator's model file (`oomscope-cli simulate --model FILE`):
//   {"format": "oomscope-sim-model", "version": 1, "fixed_bytes": <integer>, "bytes_per_point": <number>,
//    "time_fixed_s": <number>, "time_per_point_s": <number>, "torch_version": "...", "device": "cpu",
//    "model": "..."}

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/train/torch_model.h"

namespace oomscope::train {

struct CalibrationSample {
  std::int64_t points = 0;
  std::int64_t peak_bytes = 0;  // live bytes at the attempt's peak (model, optimizer state included)
  double seconds = 0;           // median wall time of the attempt (forward + backward)
};

struct Calibration {
  std::int64_t fixed_bytes = 0;
  double bytes_per_point = 0;
  double time_fixed_s = 0;
  double time_per_point_s = 0;
  double max_bytes_error = 0;  // largest |fit - measured| / measured over the samples
  std::string model;
  std::vector<CalibrationSample> samples;
};

// Runs attempts of one scene cut to each size in `points` (`repeats` times each, the median time kept)
// after a warm-up step, and fits both lines by least squares. Logs each sample to `log`.
Calibration calibrate(const ModelConfig& config, const std::vector<std::int64_t>& points, int repeats,
                      std::ostream& log);

std::string calibration_json(const Calibration& c);

}  // namespace oomscope::train
