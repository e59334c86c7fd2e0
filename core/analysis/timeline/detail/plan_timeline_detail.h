#pragma once
// Internal to plan_timeline*.cpp: the runtime side of each mapped execution (peaks, live at start and the
// explanation of the difference), filled in after the positions are placed.

#include <stop_token>

#include "core/analysis/timeline/plan_timeline.h"

namespace oomscope::analysis {

void explain_executions(const PlanTimelineInput& in, PlanTimeline& timeline, std::stop_token stop);

}  // namespace oomscope::analysis
