#pragma once
// Counters after every step, derived from an event log alone: what a trace file (from the simulator or a
// real trainer) lets the Simulator page show while stepping, with the same meaning as the Simulator's own
// Totals (tests/core/sim/step_totals_test.cpp compares them at every step).
//
// The batch boundaries are known from the whole log (a batch ends with the last event before the next
// root), so the optimizer-step counters change at the same step as in the live simulator.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/sim/config.h"
#include "core/sim/event.h"

namespace oomscope::sim {

// The totals after each step: [0] before any, [s] after step_end[s] events. grad decides what reached
// optimizer.step(); without it the applied-point counters stay 0. time, when given, prices the OOM-free run
// for the overhead figure.
std::vector<Totals> step_totals(const EventLog& log, const std::vector<std::uint32_t>& step_end,
                                std::optional<GradMode> grad, const TimeModel* time);

// Groups events into steps by their `step` field (an attempt and the halves it dropped share one):
// [0] = 0, then the number of events after each step.
std::vector<std::uint32_t> step_boundaries(const EventLog& log);

}  // namespace oomscope::sim
