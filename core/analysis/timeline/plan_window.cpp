// The plan positions a time range holds (plan_window.h).

#include "core/analysis/timeline/plan_window.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace oomscope::analysis {

PlanWindow plan_positions_in(const PlanTimeline& timeline, std::int64_t t0, std::int64_t t1) {
  PlanWindow out;
  if (timeline.positions <= 0 || t1 < t0) return out;
  const std::int64_t last_position = timeline.positions - 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> ran;
  for (const ExecutionTimeline& x : timeline.executions) {
    if (x.end_ps < t0 || x.start_ps > t1) continue;
    ++out.executions;
    if (t0 <= x.start_ps && t1 >= x.end_ps) {
      ran.emplace_back(0, last_position);
      continue;
    }
    const std::int64_t a =
        std::clamp<std::int64_t>(x.position_at(std::max(t0, x.start_ps)), 0, last_position);
    const std::int64_t b = std::clamp<std::int64_t>(x.position_at(std::min(t1, x.end_ps)), 0, last_position);
    ran.emplace_back(std::min(a, b), std::max(a, b));
  }
  if (ran.empty()) return out;
  std::sort(ran.begin(), ran.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> joined{ran.front()};
  for (const auto& [a, b] : ran) {
    if (a <= joined.back().second + 1)
      joined.back().second = std::max(joined.back().second, b);
    else
      joined.emplace_back(a, b);
  }
  if (joined.size() > 1) {
    out.cover = WindowCover::Split;
  } else if (joined.front().first == 0 && joined.front().second == last_position) {
    out.cover = WindowCover::Whole;
  } else {
    out.cover = WindowCover::Part;
    out.first = joined.front().first;
    out.last = joined.front().second;
  }
  return out;
}

}  // namespace oomscope::analysis
