#pragma once
// Internal to the plan analysis (not for other folders): XProf's unpadded sizes of the buffers and of the
// peak, and the buffers of each other memory space (plan_unpadded.cpp).

#include <cstdint>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// XProf's unpadded bytes of a shape (PlanBuffer::unpadded_bytes); -1 for an unknown element type.
std::int64_t unpadded_bytes(const xla::ShapeProto& shape);
// The unpadded size of the logical buffer in `slot` (its element of the defining instruction's shape).
std::int64_t unpadded_bytes_of(const PlanIndex& index, std::int32_t slot);
// Fills PlanBuffer::unpadded_bytes of the buffers live at the peak and the unpadded peak figures. Call
// after live_at_peak is filled.
void add_unpadded_sizes(const PlanIndex& index, PlanAnalysis& out);
// Fills MemorySpaceTotals::buffers of every memory space in out.other_memory_spaces.
void add_memory_space_buffers(const PlanIndex& index, PlanAnalysis& out);

}  // namespace oomscope::analysis::detail
