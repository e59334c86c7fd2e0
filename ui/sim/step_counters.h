#pragma once
// Counters after every step, derived from an event log alone: what a trace file (from the simulator or a
// real trainer) lets the page show while stepping, with the same meaning as sim::Totals.
//
// The batch boundaries are known from the whole log (a batch ends with the last event before the next
// root), so the optimizer-step counters change at the same step as in the live simulator.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/sim/config.h"
#include "core/sim/event.h"

namespace oomscope::ui {

// stepEnd[s] = events after s steps. grad decides what reached optimizer.step(); without it the
// applied-point counters stay 0. time, when given, prices the OOM-free run for the overhead figure.
std::vector<sim::Totals> deriveStepTotals(const sim::EventLog& log, const std::vector<std::uint32_t>& stepEnd,
                                          std::optional<sim::GradMode> grad, const sim::TimeModel* time);

// Groups events into steps by their `step` field (an attempt and the halves it dropped share one).
std::vector<std::uint32_t> stepBoundaries(const sim::EventLog& log);

}  // namespace oomscope::ui
