// Memory patterns among the buffers live at the plan's peak, each one a finding of its own:
//   split-K partial sums  a dot fusion writes f32 partials that a reduce then sums into a result an integer
//                         factor >= 2 smaller (XLA's split-K GEMM: the partials are the extra memory);
//   conv output twice     a convolution's output and a copy/transpose of it of about the same size both live;
//   host prefetch         copy-start instructions (asynchronous copies, host <-> device) hold buffers.

#include "core/analysis/plan/detail/plan_patterns.h"

#include <algorithm>
#include <cstdlib>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_shape.h"

namespace oomscope::analysis {

const char* to_string(PatternKind kind) noexcept { return enum_name(kPatternKindNames, kind, "?"); }

namespace detail {
namespace {

constexpr std::int32_t kF32 = 11;

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::int64_t element_count(const xla::ShapeProto& shape) {
  if (shape.tuple_shapes_size() > 0) return -1;
  std::int64_t n = 1;
  for (std::int64_t d : shape.dimensions()) {
    if (d < 0 || (d > 0 && n > INT64_MAX / d)) return -1;
    n *= d;
  }
  return n;
}

bool is_dot(const xla::HloInstructionProto& i) {
  if (i.opcode() == "dot") return true;
  if (i.opcode() == "fusion") return contains(i.name(), "dot") || contains(i.name(), "gemm");
  if (i.opcode() == "custom-call")
    return contains(i.custom_call_target(), "gemm") || contains(i.custom_call_target(), "Gemm") ||
           contains(i.custom_call_target(), "matmul");
  return false;
}

bool is_reduce(const xla::HloInstructionProto& i) {
  return i.opcode() == "reduce" || (i.opcode() == "fusion" && contains(i.name(), "reduce"));
}

bool is_conv(const xla::HloInstructionProto& i) {
  if (i.opcode() == "convolution") return true;
  if (i.opcode() == "custom-call") return contains(i.custom_call_target(), "conv");
  return i.opcode() == "fusion" && contains(i.name(), "conv");
}

bool is_copy_like(const xla::HloInstructionProto& i) {
  return i.opcode() == "copy" || i.opcode() == "transpose" ||
         (i.opcode() == "fusion" && (contains(i.name(), "transpose") || contains(i.name(), "copy")));
}

// Users of an instruction in its own computation, looking through get-tuple-element.
std::vector<const xla::HloInstructionProto*> users_of(const PlanIndex& index,
                                                      const xla::HloInstructionProto& def) {
  std::vector<const xla::HloInstructionProto*> out;
  const InstructionRef* ref = index.instruction(def.id());
  if (ref == nullptr || ref->computation == nullptr) return out;
  std::vector<std::int64_t> sources{def.id()};
  for (std::size_t k = 0; k < sources.size() && k < 8; ++k)
    for (const auto& i : ref->computation->instructions())
      if (std::find(i.operand_ids().begin(), i.operand_ids().end(), sources[k]) != i.operand_ids().end()) {
        if (i.opcode() == "get-tuple-element")
          sources.push_back(i.id());
        else
          out.push_back(&i);
      }
  return out;
}

std::int64_t shape_bytes_of(const xla::HloInstructionProto& i) {
  return i.shape().tuple_shapes_size() > 0 ? shape_byte_size(i.shape().tuple_shapes(0))
                                           : shape_byte_size(i.shape());
}

void split_k(const PlanIndex& index, const PlanBuffer& b, const xla::HloInstructionProto& def,
             PlanAnalysis& out) {
  if (b.element_type != kF32 || !is_dot(def)) return;
  const xla::ShapeProto* element = shape_at_index(def.shape(), b.shape_index);
  const std::int64_t partials = element ? element_count(*element) : -1;
  if (partials <= 0) return;
  for (const xla::HloInstructionProto* user : users_of(index, def)) {
    if (!is_reduce(*user)) continue;
    const std::int64_t result = element_count(user->shape());
    if (result <= 0 || partials % result != 0 || partials / result < 2 || partials / result > 64) continue;
    PlanPattern p;
    p.kind = PatternKind::SplitKPartials;
    p.instruction = def.name();
    p.shape = b.shape;
    p.bytes = b.size_bytes;
    p.other_instruction = user->name();
    p.other_shape = format_shape(user->shape());
    p.other_bytes = shape_byte_size(user->shape());
    p.factor = static_cast<int>(partials / result);
    p.op_name = b.op_name;
    p.source = b.source;
    out.patterns.push_back(std::move(p));
    return;
  }
}

void conv_twice(const PlanIndex& index, const PlanBuffer& b, const xla::HloInstructionProto& def,
                PlanAnalysis& out) {
  if (!is_conv(def) || b.role == BufferRole::Workspace || b.size_bytes <= 0) return;
  for (const xla::HloInstructionProto* user : users_of(index, def)) {
    if (!is_copy_like(*user)) continue;
    const std::int64_t copy = shape_bytes_of(*user);
    if (copy <= 0 || std::llabs(copy - b.size_bytes) * 10 > b.size_bytes) continue;  // within 10 %
    PlanPattern p;
    p.kind = PatternKind::ConvOutputTwice;
    p.instruction = def.name();
    p.shape = b.shape;
    p.bytes = b.size_bytes;
    p.other_instruction = user->name();
    p.other_shape = user->shape().tuple_shapes_size() > 0 ? format_shape(user->shape().tuple_shapes(0))
                                                          : format_shape(user->shape());
    p.other_bytes = copy;
    p.op_name = b.op_name;
    p.source = b.source;
    out.patterns.push_back(std::move(p));
    return;
  }
}

}  // namespace

void find_patterns(const PlanIndex& index, PlanAnalysis& out) {
  PlanPattern prefetch;
  prefetch.kind = PatternKind::HostPrefetch;
  prefetch.count = 0;
  for (const PlanBuffer& b : out.live_at_peak) {
    if (b.indefinite) continue;
    const xla::HloInstructionProto* def = index.instruction_by_name(b.instruction);
    if (def == nullptr) continue;
    split_k(index, b, *def, out);
    conv_twice(index, b, *def, out);
    if (def->opcode() == "copy-start") {
      if (prefetch.count++ == 0) {
        prefetch.instruction = def->name();
        prefetch.shape = b.shape;
        prefetch.op_name = b.op_name;
        prefetch.source = b.source;
      }
      add_bytes(prefetch.bytes, b.size_bytes);
    }
  }
  if (prefetch.count > 0) out.patterns.push_back(std::move(prefetch));
}

}  // namespace detail
}  // namespace oomscope::analysis
