#pragma once
// Which part of the plan ran inside a time range: each execution of the analysed module places the plan's
// trace positions on the clock (PlanTimeline), so a range of time maps back to the positions that ran in
// it. A range inside one execution holds a part of the plan, and the plan's figures (the highest point, the
// buffers live there) can be re-scoped to that part; a range holding a whole execution holds the whole plan.

#include <cstdint>

#include "core/analysis/timeline/plan_timeline.h"
#include "core/util/enum_names.h"

namespace oomscope::analysis {

enum class WindowCover : std::uint8_t {
  NoExecution,  // no execution of the analysed module overlaps the range
  Part,         // the positions that ran form one range short of the whole plan
  Whole,        // every position ran in it (a whole execution, or the parts of several that join up)
  Split,        // the end of one execution and the start of the next: two ranges of positions
};
inline constexpr EnumName<WindowCover> kWindowCoverNames[] = {{WindowCover::NoExecution, "no execution"},
                                                              {WindowCover::Part, "part"},
                                                              {WindowCover::Whole, "whole"},
                                                              {WindowCover::Split, "split"}};
static_assert(names_every_value(kWindowCoverNames, WindowCover::Split));

struct PlanWindow {
  WindowCover cover = WindowCover::NoExecution;
  std::int64_t first = 0;  // Part: the first and last trace positions that ran in the range
  std::int64_t last = 0;
  int executions = 0;  // executions of the module overlapping the range
};

// The trace positions of the timeline's plan that ran in [t0, t1] (ps of the capture's clock): in each
// execution overlapping it, from the position running at the later of t0 and its start to the one running
// at the earlier of t1 and its end (ExecutionTimeline::position_at).
PlanWindow plan_positions_in(const PlanTimeline& timeline, std::int64_t t0, std::int64_t t1);

}  // namespace oomscope::analysis
