// The logical buffers an instruction defines, for the timeline's hover text (plan_timeline.h).

#include <algorithm>

#include "core/analysis/plan/plan_index.h"
#include "core/analysis/plan/plan_shape.h"
#include "core/analysis/timeline/plan_timeline.h"
#include "hlo.pb.h"

namespace oomscope::analysis {

std::vector<DefinedBuffer> buffers_defined_by(const xla::HloProto& hlo, std::string_view instruction,
                                              std::int64_t color) {
  std::vector<DefinedBuffer> out;
  if (!hlo.has_buffer_assignment()) return out;
  const detail::PlanIndex index(hlo);
  for (const xla::LogicalBufferProto& b : hlo.buffer_assignment().logical_buffers()) {
    if (b.color() != color) continue;
    const xla::HloInstructionProto* defining = nullptr;
    if (const auto* ref = index.instruction(b.defined_at().instruction_id())) defining = ref->instruction;
    const std::string_view name = !b.defined_at().instruction_name().empty()
                                      ? std::string_view(b.defined_at().instruction_name())
                                      : (defining ? std::string_view(defining->name()) : std::string_view());
    if (name != instruction) continue;
    DefinedBuffer d;
    d.logical_buffer_id = b.id();
    d.bytes = b.size();
    if (!defining) defining = index.instruction_by_name(name);
    if (defining) {
      const std::vector<std::int64_t> shape_index(b.defined_at().shape_index().begin(),
                                                  b.defined_at().shape_index().end());
      if (const xla::ShapeProto* s = shape_at_index(defining->shape(), shape_index))
        d.shape = format_shape(*s);
    }
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DefinedBuffer& a, const DefinedBuffer& b) { return a.bytes > b.bytes; });
  return out;
}

}  // namespace oomscope::analysis
