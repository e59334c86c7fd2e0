#pragma once
// Internal to the plan analysis: what a buffer is (shape, defining op, role, Python line).

#include <cstdint>
#include <string_view>

#include "core/analysis/plan.h"
#include "core/analysis/plan_index.h"

namespace oomscope::analysis::detail {

// Role from a JAX name stack alone: Backward for "transpose(", ForwardKept for "jvp(", else Other.
BufferRole role_from_op_name(std::string_view op_name);

// Source line of an instruction: OpMetadata.source_file/source_line when source_file is set, else the
// innermost frame of the stack-frame index reached from stack_frame_id (ids are 1-based, 0 = none).
SourceLocation source_of(const xla::HloInstructionProto& instruction, const xla::StackFrameIndexProto& frames);

// Fills shape, element type, defining instruction, op_name, source and the heap role of a logical buffer.
// The role is set for a temp buffer; callers override it for indefinite allocations.
void describe_buffer(const PlanIndex& index, std::int32_t slot, PlanBuffer& out);

}  // namespace oomscope::analysis::detail
