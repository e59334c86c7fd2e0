// Roles follow docs/report-rules.md: workspace (s8 output of a custom-call) wins, then the JAX name stack
// ("transpose(" before "jvp(", because backward stacks read "transpose(jvp(...))"). An op with an empty
// op_name is XLA-generated; it takes the role of the first alias position whose instruction has a name
// stack, and stays "other" when none has.

#include "core/analysis/plan/detail/plan_roles.h"

#include "core/analysis/plan/plan_shape.h"

namespace oomscope::analysis::detail {
namespace {

constexpr std::int32_t kS8 = 2;

bool is_workspace(const xla::HloInstructionProto& instruction, std::int32_t element_type) {
  return instruction.opcode() == "custom-call" && element_type == kS8;
}

}  // namespace

BufferRole role_from_op_name(std::string_view op_name) {
  if (op_name.find("transpose(") != std::string_view::npos) return BufferRole::Backward;
  if (op_name.find("jvp(") != std::string_view::npos) return BufferRole::ForwardKept;
  return BufferRole::Other;
}

SourceLocation source_of(const xla::HloInstructionProto& instruction,
                         const xla::StackFrameIndexProto& frames) {
  SourceLocation location;
  const auto& metadata = instruction.metadata();
  if (!metadata.source_file().empty()) {
    location.file = metadata.source_file();
    location.line = metadata.source_line();
    return location;
  }
  const std::int64_t frame_id = metadata.stack_frame_id();
  if (frame_id <= 0 || frame_id > frames.stack_frames_size()) return location;
  const auto& frame = frames.stack_frames(static_cast<int>(frame_id - 1));
  const std::int32_t location_id = frame.file_location_id();
  if (location_id <= 0 || location_id > frames.file_locations_size()) return location;
  const auto& file_location = frames.file_locations(location_id - 1);
  if (file_location.file_name_id() > 0 && file_location.file_name_id() <= frames.file_names_size())
    location.file = frames.file_names(file_location.file_name_id() - 1);
  if (file_location.function_name_id() > 0 &&
      file_location.function_name_id() <= frames.function_names_size())
    location.function = frames.function_names(file_location.function_name_id() - 1);
  location.line = file_location.line();
  location.from_stack_frames = true;
  return location;
}

void describe_buffer(const PlanIndex& index, std::int32_t slot, PlanBuffer& out) {
  const xla::LogicalBufferProto& buffer = index.buffer(slot);
  out.logical_buffer_id = buffer.id();
  out.shape_index.assign(buffer.defined_at().shape_index().begin(), buffer.defined_at().shape_index().end());
  const std::int32_t allocation = index.allocation_of(slot);
  if (allocation >= 0) out.allocation_index = index.assignment().buffer_allocations(allocation).index();

  const xla::HloInstructionProto* instruction = index.defining_instruction(slot);
  if (instruction == nullptr) {
    out.instruction = buffer.defined_at().instruction_name();
    out.role = BufferRole::Other;
    return;
  }
  out.instruction = instruction->name();
  out.opcode = instruction->opcode();
  out.custom_call_target = instruction->custom_call_target();
  out.op_name = instruction->metadata().op_name();
  out.source = source_of(*instruction, index.hlo().hlo_module().stack_frame_index());

  if (const xla::ShapeProto* element = shape_at_index(instruction->shape(), out.shape_index)) {
    out.shape = format_shape(*element);
    out.element_type = element->tuple_shapes_size() > 0 ? 0 : element->element_type();
  } else {
    // An index the shape does not have: show the whole shape rather than nothing.
    out.shape = format_shape(instruction->shape());
  }

  if (is_workspace(*instruction, out.element_type)) {
    out.role = BufferRole::Workspace;
    return;
  }
  if (!out.op_name.empty()) {
    out.role = role_from_op_name(out.op_name);
    return;
  }
  out.role = BufferRole::Other;
  if (const auto* aliases = index.alias_instruction_ids(buffer.id())) {
    for (std::int64_t id : *aliases) {
      const InstructionRef* ref = index.instruction(id);
      if (ref == nullptr || ref->instruction->metadata().op_name().empty()) continue;
      out.role = role_from_op_name(ref->instruction->metadata().op_name());
      out.role_via_instruction = ref->instruction->name();
      out.role_via_op_name = ref->instruction->metadata().op_name();
      if (!out.source.known())
        out.source = source_of(*ref->instruction, index.hlo().hlo_module().stack_frame_index());
      break;
    }
  }
}

}  // namespace oomscope::analysis::detail
