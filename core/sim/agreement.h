#pragma once
// How closely two runs of the same scenes agree, attempt by attempt: a real trainer's trace against the
// simulator's prediction (or any two runs). Outcomes are compared in event order.

#include <cstdint>

#include "core/sim/event.h"

namespace oomscope::sim {

struct Agreement {
  std::int64_t events_a = 0;
  std::int64_t events_b = 0;
  std::int64_t same = 0;               // positions where both runs have an event with the same outcome
  std::int64_t first_divergence = -1;  // first position that differs (outcome, or one run ended); -1: none
  // same / max(events_a, events_b); 1 for two empty runs.
  double fraction() const {
    const std::int64_t n = events_a > events_b ? events_a : events_b;
    return n ? double(same) / double(n) : 1.0;
  }
};

Agreement compare_outcomes(const EventLog& a, const EventLog& b);

}  // namespace oomscope::sim
