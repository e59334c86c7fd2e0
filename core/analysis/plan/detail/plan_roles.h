#pragma once
// Internal to the plan analysis (not for other folders): what a buffer is (plan_roles.cpp): its role from
// the JAX name stack, its Python source line, and the description of a logical buffer (shape, defining
// instruction, op_name, source, role).

#include <cstdint>
#include <string_view>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// Role from a JAX name stack alone: Backward for "transpose(", ForwardKept for "jvp(", else Other.
BufferRole role_from_op_name(std::string_view op_name);

// Source line of an instruction: OpMetadata.source_file/source_line when source_file is set, else the
// innermost frame of the stack-frame index reached from stack_frame_id (ids are 1-based, 0 = none).
SourceLocation source_of(const xla::HloInstructionProto& instruction,
                         const xla::StackFrameIndexProto& frames);

// Fills shape, element type, defining instruction, op_name, source and the heap role of a logical buffer.
// The role is set for a temp buffer; callers override it for indefinite allocations.
void describe_buffer(const PlanIndex& index, std::int32_t slot, PlanBuffer& out);

}  // namespace oomscope::analysis::detail
