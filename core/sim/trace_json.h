#pragma once
// The simulator's config, totals and baselines as the JSON of the trace file (trace_json.cpp).

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/sim/config.h"
#include "core/sim/event.h"

namespace oomscope::sim {

nlohmann::json config_to_json(const SimConfig& config);
// Throws oomscope::Error (InvalidArgument) naming `name` and the bad key.
SimConfig config_from_json(const nlohmann::json& j, const std::string& name);

nlohmann::json totals_to_json(const Totals& t);
nlohmann::json baselines_to_json(const Baselines& b);

}  // namespace oomscope::sim
