#pragma once
// Parts of build_host_report() that read the capture beyond the plan and the runtime analysis
// (report_facts.cpp).

#include <cstddef>
#include <span>

#include "core/analysis/report/report.h"
#include "core/analysis/runtime/runtime_executions.h"

namespace oomscope::analysis::detail {

// Facts of the whole analysed module that module-wide fixes need: the split-K partials at the other
// phase's peak (the same pattern search at that point of the plan) and the largest library workspace (s8
// custom-call output) in its HLO.
void add_module_wide_facts(const capture::Module& module, HostReport& r);

// The runtime peak explained (and its execution's module among `refs`, one ModuleRef per module), and
// whether the donatable parameters' buffers are dead after the analysed module's calls.
void add_runtime_facts(const capture::Capture& c, std::span<const ModuleRef> refs, std::size_t top,
                       HostReport& r);

}  // namespace oomscope::analysis::detail
