// Per-module totals of the buffer assignment (memory space / color 0), by XProf's allocation categories
// (docs/capture-format.md section 6): parameter, then output, then thread-local, then constant, else temp.

#include <set>
#include <utility>
#include <vector>

#include "core/capture/detail/capture_internals.h"
#include "core/capture/reader.h"
#include "hlo.pb.h"

namespace oomscope::capture {

PlanTotals compute_plan_totals(const xla::HloProto& hlo) {
  PlanTotals t;
  const auto& ba = hlo.buffer_assignment();
  t.heap_trace_count = ba.heap_simulator_traces_size();

  // (parameter_number, parameter_shape_index) pairs the module declares as aliased with an output.
  std::set<std::pair<std::int64_t, std::vector<std::int64_t>>> declared;
  for (const auto& e : hlo.hlo_module().input_output_alias().entries())
    declared.emplace(e.parameter_number(), std::vector<std::int64_t>(e.parameter_shape_index().begin(),
                                                                     e.parameter_shape_index().end()));

  for (const auto& a : ba.buffer_allocations()) {
    if (a.color() != 0) continue;
    ++t.allocation_count;
    t.total_allocation_bytes = saturating_add(t.total_allocation_bytes, a.size());
    if (a.is_entry_computation_parameter()) {
      ++t.parameter_count;
      t.parameters_bytes = saturating_add(t.parameters_bytes, a.size());
      const std::pair<std::int64_t, std::vector<std::int64_t>> key(
          a.parameter_number(),
          std::vector<std::int64_t>(a.parameter_shape_index().begin(), a.parameter_shape_index().end()));
      const bool by_flags = a.maybe_live_out() || a.is_parameter_aliased_with_output();
      const bool by_alias = declared.count(key) > 0;
      // The allocation flags are what buffer assignment did; input_output_alias is what the module asked
      // for. Either one makes the parameter buffer an output buffer, so the parameter is donated.
      if (by_flags || by_alias) {
        ++t.donated_count;
        t.donated_bytes = saturating_add(t.donated_bytes, a.size());
      }
      if (by_flags != by_alias) ++t.donation_disagreements;
    } else if (a.maybe_live_out()) {
      t.outputs_bytes = saturating_add(t.outputs_bytes, a.size());
    } else if (a.is_thread_local()) {
      t.thread_local_bytes = saturating_add(t.thread_local_bytes, a.size());
    } else if (a.is_constant()) {
      t.constants_bytes = saturating_add(t.constants_bytes, a.size());
    } else {
      t.temp_bytes = saturating_add(t.temp_bytes, a.size());
    }
  }
  return t;
}

}  // namespace oomscope::capture
