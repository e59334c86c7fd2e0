#pragma once
// A calibrated model file (docs/sim-model-format.md): what `oomscope-demo-trainer --calibrate` measured
// for one model (fixed bytes and bytes per point of an attempt, seconds per attempt and per point), read
// by `oomscope-cli simulate --model FILE` to predict a real run.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/sim/config.h"

namespace oomscope::sim {

inline constexpr const char* kModelFormat = "oomscope-sim-model";
inline constexpr int kModelVersion = 1;

struct CalibratedModel {
  std::int64_t fixed_bytes = 0;                     // per attempt, whatever the fragment's size
  double bytes_per_point = 0;                       // forward + backward peak per point
  double time_fixed_s = 0;                          // per attempt
  double time_per_point_s = 0;                      // forward + backward per point
  nlohmann::json extra = nlohmann::json::object();  // every other key of the file (torch_version, device...)
};

// Throws oomscope::Error naming `name` and the problem: not JSON, not an object, wrong format or version,
// a required key missing or of the wrong type, a value out of range.
CalibratedModel parse_model(std::string_view text, const std::string& name);
CalibratedModel parse_model_json(const nlohmann::json& j, const std::string& name);
CalibratedModel read_model_file(const std::string& path);

// The file's figures as the simulator's memory and time models: fixed_bytes and bytes_per_point (rounded
// to whole bytes, at least 1), time_fixed_s as fixed_ns_per_attempt, time_per_point_s split into forward and
// backward in the default model's 35:65 ratio. Budget, fragmentation and the retry costs are left as they
// are.
void apply_model(const CalibratedModel& model, SimConfig& config);

nlohmann::json model_to_json(const CalibratedModel& model);

}  // namespace oomscope::sim
