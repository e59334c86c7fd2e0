#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/analysis/report/detail/report_detail.h"
#include "hlo.pb.h"

namespace oomscope::analysis::detail {

namespace {

// The allocator whose peak the report explains: the analysed module's, else the device allocator (not a
// host-memory one) with the largest peak in use.
std::optional<std::uint32_t> peak_allocator(const HostReport& r) {
  if (r.runtime.module && r.runtime.module->allocator) return r.runtime.module->allocator;
  std::optional<std::uint32_t> best;
  for (const AllocatorRuntime& a : r.runtime.allocators)
    if (a.name.find("host") == std::string::npos &&
        (!best || a.peak_bytes_in_use > r.runtime.allocators[*best].peak_bytes_in_use))
      best = a.index;
  return best;
}

}  // namespace

void add_module_wide_facts(const capture::Module& m, HostReport& r) {
  if (!r.plan || !m.hlo) return;
  if (const auto other = r.plan->other_phase_peak(); other && other->event_index >= 0) {
    PlanOptions po;
    po.peak_range = std::pair(other->event_index, other->event_index);
    const PlanAnalysis there = analyze_plan(m, po);
    for (const PlanPattern& p : there.patterns)
      if (p.kind == PatternKind::SplitKPartials) {
        r.other_phase_split_k_bytes += p.bytes;
        if (r.other_phase_split_k_instruction.empty()) r.other_phase_split_k_instruction = p.instruction;
      }
  }
  constexpr int kS8 = 2;  // xla::PrimitiveType S8
  for (const auto& computation : m.hlo->hlo_module().computations())
    for (const auto& i : computation.instructions()) {
      if (i.opcode() != "custom-call") continue;
      auto consider = [&](const xla::ShapeProto& s) {
        if (s.element_type() != kS8) return;
        std::int64_t n = 1;
        for (std::int64_t d : s.dimensions()) n = d > 0 && n <= INT64_MAX / d ? n * d : n;
        r.gemm_workspace_bytes = std::max(r.gemm_workspace_bytes, n);
      };
      consider(i.shape());
      for (const auto& s : i.shape().tuple_shapes()) consider(s);
    }
}

void add_runtime_facts(const capture::Capture& c, std::span<const ModuleRef> refs, std::size_t top,
                       HostReport& r) {
  if (const auto alloc = peak_allocator(r)) {
    r.runtime_peak = explain_runtime_peak(c, r.runtime, *alloc, std::min<std::size_t>(top, 5), top);
    if (r.runtime_peak && r.runtime_peak->execution) {
      const RuntimeExecution& x = *r.runtime_peak->execution;
      std::vector<std::size_t> of;
      for (std::size_t i = 0; i < refs.size(); ++i)
        if (execution_of(x, refs[i])) of.push_back(i);
      if (of.size() == 1) r.peak_module_index = of.front();
    }
  }
  if (r.plan && r.plan->donation.donatable_bytes > 0 && r.runtime.module && r.runtime.module->allocator) {
    std::vector<std::int64_t> sizes, all;
    for (const ParameterAllocation& p : r.plan->donation.parameters) {
      if (p.donatable) sizes.push_back(p.bytes);
      all.push_back(p.bytes);
    }
    r.donation_liveness =
        check_donation_liveness(c.memory_events(), *r.runtime.module->allocator, r.runtime.module->executions,
                                r.runtime.all_executions(), sizes, all);
  }
}

}  // namespace oomscope::analysis::detail
