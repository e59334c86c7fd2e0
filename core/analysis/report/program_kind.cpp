#include "core/analysis/report/program_kind.h"

#include "core/analysis/report/report.h"

namespace oomscope::analysis {

ProgramKind decide_program_kind(std::span<const ModuleRow> modules) {
  ProgramKind k;
  k.modules = static_cast<std::int64_t>(modules.size());
  for (const ModuleRow& m : modules) {
    if (m.executions <= 0) continue;
    ++k.modules_executed;
    k.executions += m.executions;
    const std::string label = m.name + "(" + std::to_string(m.program_id) + ")";
    if (m.executions > k.most_executions) {
      k.most_executions = m.executions;
      k.most_executed = label;
    }
    if (m.has_backward && k.steps_executed++ == 0) k.step = label;
  }
  k.eager = k.modules >= 5 && k.modules_executed >= 3 && k.steps_executed == 0 &&
            k.most_executions * 2 <= k.executions;
  return k;
}

}  // namespace oomscope::analysis
