#pragma once
// The buffers of a plan: why each exists (BufferRole), the Python line that made it (SourceLocation), one
// live buffer as the plan shows it (PlanBuffer) and the bytes of each role at the peak (RoleTotal).
// PlanAnalysis (plan.h) holds them; plan_curve.h merges the small ones as XProf does.

#include <cstdint>
#include <string>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::analysis {

// ---- roles ------------------------------------------------------------------------------------------

// Why a buffer exists, from the JAX name stack in OpMetadata.op_name (docs/report-rules.md):
//   Workspace   an s8 output (or s8 tuple element) of a custom-call: GEMM/conv library scratch
//   Backward    op_name contains "transpose(" (checked before jvp: backward name stacks read
//   "transpose(jvp(") ForwardKept op_name contains "jvp(" and the buffer is still live when the backward
//   starts (the first
//               trace event of a "transpose(" instruction): activations kept for the backward pass
//   ForwardTransient op_name contains "jvp(" but the buffer is freed before the backward starts (or the
//               program has no backward): a forward temporary that remat cannot remove
//   Parameter / Output / Constant / ThreadLocal   indefinite allocations (the category of the allocation)
//   Other       anything else, including XLA-generated ops with no name stack and no alias that has one
enum class BufferRole : std::uint8_t {
  ForwardKept,
  ForwardTransient,
  Backward,
  Workspace,
  Other,
  Parameter,
  Output,
  Constant,
  ThreadLocal,
};
inline constexpr int kBufferRoleCount = 9;

// "forward-kept", "forward-transient", "backward", "workspace", "other", "parameter", "output", "constant",
// "thread-local".
inline constexpr EnumName<BufferRole> kBufferRoleNames[] = {
    {BufferRole::ForwardKept, "forward-kept"},
    {BufferRole::ForwardTransient, "forward-transient"},
    {BufferRole::Backward, "backward"},
    {BufferRole::Workspace, "workspace"},
    {BufferRole::Other, "other"},
    {BufferRole::Parameter, "parameter"},
    {BufferRole::Output, "output"},
    {BufferRole::Constant, "constant"},
    {BufferRole::ThreadLocal, "thread-local"}};
static_assert(names_every_value(kBufferRoleNames, BufferRole::ThreadLocal));
const char* to_string(BufferRole role) noexcept;

// ---- source location --------------------------------------------------------------------------------

struct SourceLocation {
  std::string file;                // as recorded (absolute path usually)
  int line = 0;                    // 1-based; 0 = unknown
  std::string function;            // only known through the stack-frame index
  bool from_stack_frames = false;  // true when found by walking stack_frame_id, false for source_file/line

  bool known() const { return !file.empty(); }
  // "file:line" (or "file" when the line is unknown, "" when nothing is known).
  std::string to_string() const;
};

// ---- buffers ----------------------------------------------------------------------------------------

// One buffer of the plan: a heap (temp) logical buffer live at the peak, or the representative of an
// indefinite allocation (parameter, output, constant, thread-local).
struct PlanBuffer {
  std::int64_t logical_buffer_id = -1;
  // Heap buffers: LogicalBufferProto.size of the root canonical buffer (what the heap holds).
  // Indefinite buffers: the ALLOCATION's size (XProf adds the allocation, not the representative).
  std::int64_t size_bytes = 0;
  // XProf's unpadded size of the memory size_bytes counts (heap buffers: the root canonical's; indefinite
  // ones: the representative's): elements x element bytes with the layout's tiling and padding ignored,
  // 8 bytes a tuple element (ShapeUtil::ByteSizeOf with the default layout). -1 when the shape is unknown.
  std::int64_t unpadded_bytes = -1;
  std::int64_t allocation_index = -1;
  std::string shape;  // "f32[8,8,1024,1024]", tuple element resolved through defined_at.shape_index
  std::int32_t element_type = 0;          // xla PrimitiveType number of the (element) shape; 0 unknown/tuple
  std::vector<std::int64_t> shape_index;  // defined_at.shape_index
  std::string instruction;                // defining instruction name ("" if the proto does not name it)
  std::string opcode;                     // defining instruction opcode ("fusion", "custom-call", ...)
  std::string custom_call_target;
  std::string op_name;  // the defining instruction's OpMetadata.op_name (JAX name stack)
  BufferRole role = BufferRole::Other;
  // When the role came through an alias (the defining op has no name stack): the aliasing instruction's
  // name and its op_name. Empty when the role came from the buffer's own instruction. Aliases are the
  // positions in BufferAssignmentProto.buffer_aliases (first one with a name stack, in proto order) and,
  // for a buffer shown at the peak as the sharer of a revived canonical, that canonical.
  std::string role_via_instruction;
  std::string role_via_op_name;
  SourceLocation source;
  bool indefinite = false;
  // Heap buffers: trace event index at which this buffer's memory became live (ALLOC, or the SHARE_WITH
  // that revived it). -1 for indefinite buffers.
  std::int64_t live_since_event = -1;
  // Heap buffers: trace event index that freed it; -1 when never freed in the trace (or indefinite).
  std::int64_t freed_at_event = -1;
  // When the live memory is a root canonical buffer revived by a SHARE_WITH, the id of that canonical
  // (logical_buffer_id is then the sharer, XProf's "display" buffer). -1 otherwise.
  std::int64_t canonical_buffer_id = -1;
  // Indefinite parameters only.
  std::int64_t parameter_number = -1;
  std::vector<std::int64_t> parameter_shape_index;
};

struct RoleTotal {
  BufferRole role = BufferRole::Other;
  std::int64_t bytes = 0;
  int buffers = 0;
  double percent_of_peak = 0.0;  // bytes / PlanAnalysis::peak_bytes * 100 (0 when the peak is 0)
  // Heap roles only (forward-kept, backward, workspace, other): bytes / heap_peak_bytes * 100, the figure
  // behind "heap peak 81.6 % forward-kept". 0 for the indefinite roles.
  double percent_of_heap_peak = 0.0;
};

}  // namespace oomscope::analysis
