#pragma once
// The what-if result as JSON (docs/allocator-model.md, "JSON"). `validated` and `predictions` say whether
// the recorded run was reproduced; only then are the other scenarios' figures predictions.

#include <nlohmann/json_fwd.hpp>

#include "core/allocator/whatif.h"

namespace oomscope::allocator {

nlohmann::ordered_json settings_json(const AllocatorConfig& config);
nlohmann::ordered_json whatif_json(const WhatIfResult& result);

}  // namespace oomscope::allocator
