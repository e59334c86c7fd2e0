#pragma once
// Internal to the plan analysis (not for other folders): donation (plan_donation.cpp): which parameters are
// donated (aliased with an output), the evidence for it, and which could be (an un-aliased output has the
// same dtype and dimensions).

#include <cstdint>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

DonationSummary analyze_donation(const PlanIndex& index, std::int64_t color);

}  // namespace oomscope::analysis::detail
