#pragma once
// Internal to the plan analysis (not for other folders): the memory patterns among the buffers live at the
// peak (plan_patterns.cpp).

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// Split-K partial sums, convolution outputs held twice and host prefetches among the peak's buffers.
void find_patterns(const PlanIndex& index, PlanAnalysis& out);

}  // namespace oomscope::analysis::detail
