#include "core/sim/agreement.h"

#include <algorithm>

namespace oomscope::sim {

Agreement compare_outcomes(const EventLog& a, const EventLog& b) {
  Agreement r;
  r.events_a = static_cast<std::int64_t>(a.events.size());
  r.events_b = static_cast<std::int64_t>(b.events.size());
  const std::size_t n = std::min(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a.events[i].outcome == b.events[i].outcome)
      ++r.same;
    else if (r.first_divergence < 0)
      r.first_divergence = static_cast<std::int64_t>(i);
  }
  if (r.first_divergence < 0 && r.events_a != r.events_b) r.first_divergence = static_cast<std::int64_t>(n);
  return r;
}

}  // namespace oomscope::sim
