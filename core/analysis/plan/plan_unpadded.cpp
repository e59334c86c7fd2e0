// XProf's padded vs unpadded sizes and the buffers of each memory space (detail/plan_unpadded.h).
//
// XProf's memory viewer shows each buffer's size as the buffer assignment holds it (padded: on TPU a
// layout's tiles round every array up, an f32[] takes 512 bytes) beside its "unpadded" size, the bytes of
// its shape with the layout reset to the default one (ShapeUtil::ByteSizeOf with a pointer size of 8:
// elements x element bytes, 8 bytes a tuple element), and its "peak unpadded heap" is the unpadded sizes of
// the heap buffers live at the padded peak plus the indefinite allocations at their padded size.

#include "core/analysis/plan/detail/plan_unpadded.h"

#include <algorithm>

#include "core/analysis/plan/detail/plan_roles.h"
#include "core/analysis/plan/plan_shape.h"
#include "hlo.pb.h"

namespace oomscope::analysis::detail {

namespace {

constexpr std::int32_t kTuple = 13, kOpaque = 14, kToken = 17;
constexpr std::int64_t kPointerBytes = 8;

BufferRole allocation_role(const xla::BufferAllocationProto& a) {
  if (a.is_entry_computation_parameter()) return BufferRole::Parameter;
  if (a.maybe_live_out()) return BufferRole::Output;
  if (a.is_thread_local()) return BufferRole::ThreadLocal;
  if (a.is_constant()) return BufferRole::Constant;
  return BufferRole::Other;
}

}  // namespace

std::int64_t unpadded_bytes(const xla::ShapeProto& shape) {
  const std::int32_t type = shape.element_type();
  if (type == kTuple || (type == 0 && shape.tuple_shapes_size() > 0))
    return kPointerBytes * shape.tuple_shapes_size();
  if (type == kToken) return 0;
  if (type == kOpaque) return kPointerBytes;
  const int bits = primitive_bit_width(type);
  if (bits <= 0) return -1;
  std::int64_t n = (bits + 7) / 8;  // XLA's ByteWidth: a sub-byte type takes a byte without its layout
  for (std::int64_t d : shape.dimensions()) {
    if (d < 0) return -1;
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

std::int64_t unpadded_bytes_of(const PlanIndex& index, std::int32_t slot) {
  if (slot < 0) return -1;
  const xla::HloInstructionProto* instruction = index.defining_instruction(slot);
  if (instruction == nullptr) return -1;
  const auto& at = index.buffer(slot).defined_at().shape_index();
  const std::vector<std::int64_t> shape_index(at.begin(), at.end());
  const xla::ShapeProto* element = shape_at_index(instruction->shape(), shape_index);
  return element ? unpadded_bytes(*element) : -1;
}

void add_unpadded_sizes(const PlanIndex& index, PlanAnalysis& out) {
  std::int64_t heap = 0;
  bool known = out.status == PlanStatus::Ok;
  for (PlanBuffer& b : out.live_at_peak) {
    // A revived canonical's memory is the canonical's (size_bytes is its size): so is the unpadded size.
    const std::int64_t id = b.canonical_buffer_id >= 0 ? b.canonical_buffer_id : b.logical_buffer_id;
    b.unpadded_bytes = unpadded_bytes_of(index, index.slot_of(id));
    if (b.indefinite) continue;
    if (b.unpadded_bytes < 0) known = false;
    if (known) add_bytes(heap, b.unpadded_bytes);
  }
  if (!known) return;
  out.unpadded_heap_peak_bytes = heap;
  out.unpadded_peak_bytes = heap;
  add_bytes(out.unpadded_peak_bytes, out.indefinite_bytes);
}

void add_memory_space_buffers(const PlanIndex& index, PlanAnalysis& out) {
  for (const auto& a : index.assignment().buffer_allocations()) {
    auto space = std::find_if(out.other_memory_spaces.begin(), out.other_memory_spaces.end(),
                              [&](const MemorySpaceTotals& t) { return t.color == a.color(); });
    if (space == out.other_memory_spaces.end()) continue;
    for (const auto& assigned : a.assigned()) {
      const std::int32_t slot = index.slot_of(assigned.logical_buffer_id());
      if (slot < 0) continue;
      PlanBuffer buffer;
      describe_buffer(index, slot, buffer);
      buffer.size_bytes = index.buffer(slot).size();
      buffer.unpadded_bytes = unpadded_bytes_of(index, slot);
      buffer.allocation_index = a.index();
      const BufferRole kind = allocation_role(a);
      buffer.indefinite = kind != BufferRole::Other;
      if (buffer.indefinite) buffer.role = kind;
      if (a.is_entry_computation_parameter()) buffer.parameter_number = a.parameter_number();
      space->buffers.push_back(std::move(buffer));
    }
  }
  for (MemorySpaceTotals& t : out.other_memory_spaces)
    std::stable_sort(t.buffers.begin(), t.buffers.end(),
                     [](const PlanBuffer& x, const PlanBuffer& y) { return x.size_bytes > y.size_bytes; });
}

}  // namespace oomscope::analysis::detail
