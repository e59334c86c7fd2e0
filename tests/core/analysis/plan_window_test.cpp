// plan_positions_in: a time range maps back to the plan positions that ran in it, through each execution's
// placement of the plan on the clock.

#include "core/analysis/timeline/plan_window.h"

#include <gtest/gtest.h>

namespace oomscope::analysis {
namespace {

// Two executions of a 101-position plan: the first places position p at 1000 + 10 p (ps), the second at
// 5000 + 10 p; both end 10 ps after their last position.
PlanTimeline two_executions() {
  PlanTimeline tl;
  tl.positions = 101;
  for (std::int64_t start : {1000, 5000}) {
    ExecutionTimeline x;
    x.start_ps = start;
    x.end_ps = start + 1010;
    x.anchors = {{0, start}, {50, start + 500}, {100, start + 1000}};
    tl.executions.push_back(x);
  }
  return tl;
}

TEST(PlanWindow, ARangeInsideOneExecutionHoldsThePositionsThatRanInIt) {
  const PlanWindow w = plan_positions_in(two_executions(), 1200, 1455);
  EXPECT_EQ(w.cover, WindowCover::Part);
  EXPECT_EQ(w.first, 20);  // placed at 1200
  EXPECT_EQ(w.last, 45);   // placed at 1450, still running at 1455
  EXPECT_EQ(w.executions, 1);
}

TEST(PlanWindow, ARangeFromBeforeAnExecutionHoldsItsStart) {
  const PlanWindow w = plan_positions_in(two_executions(), 4000, 5305);
  EXPECT_EQ(w.cover, WindowCover::Part);
  EXPECT_EQ(w.first, 0);
  EXPECT_EQ(w.last, 30);
}

TEST(PlanWindow, AWholeExecutionHoldsTheWholePlan) {
  EXPECT_EQ(plan_positions_in(two_executions(), 900, 2100).cover, WindowCover::Whole);
  const PlanWindow both = plan_positions_in(two_executions(), 0, 10000);
  EXPECT_EQ(both.cover, WindowCover::Whole);
  EXPECT_EQ(both.executions, 2);
}

TEST(PlanWindow, TheEndOfOneAndTheStartOfTheNextAreTwoParts) {
  // Positions 80..100 of the first, 0..20 of the second.
  EXPECT_EQ(plan_positions_in(two_executions(), 1800, 5200).cover, WindowCover::Split);
  // When they join up (90..100 then 0..95) every position ran.
  EXPECT_EQ(plan_positions_in(two_executions(), 1900, 5950).cover, WindowCover::Whole);
}

TEST(PlanWindow, NoExecutionInTheRange) {
  const PlanWindow w = plan_positions_in(two_executions(), 2500, 4500);
  EXPECT_EQ(w.cover, WindowCover::NoExecution);
  EXPECT_EQ(w.executions, 0);
  EXPECT_EQ(plan_positions_in(PlanTimeline{}, 0, 100).cover, WindowCover::NoExecution);
}

}  // namespace
}  // namespace oomscope::analysis
