#pragma once
// Internal to the plan analysis (not for other folders): the phases of a module from its JAX name stacks
// (plan_phases.cpp): the backward's first/last event, the peak's phase, each phase's peak, and the allocation
// totals of the other memory spaces.

#include <cstdint>
#include <span>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// Finds the backward's first/last event, the peak's phase and each phase's peak (needs the curve and
// peak_event_index), and turns forward buffers at the peak that are freed before the backward starts
// into ForwardTransient. Call after the live-at-peak buffers and the curve are filled, before role totals.
void analyze_phases(const PlanIndex& index, std::span<const xla::HeapSimulatorTrace::Event* const> events,
                    PlanAnalysis& out);

// Allocation totals of every memory space other than `color` (host offload is memory space 5).
void add_other_memory_spaces(const PlanIndex& index, std::int64_t color, PlanAnalysis& out);

}  // namespace oomscope::analysis::detail
