#pragma once
// Internal consistency checks on the runtime figures a report prints: where the capture's own numbers
// disagree with each other (a damaged or edited file, or events the profiler dropped), the report says so
// in its problems instead of printing the figure as fact.

#include <string>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

// One sentence per failed check, naming the allocator or module and the figures that disagree.
std::vector<std::string> consistency_problems(const capture::Capture& capture,
                                              const RuntimeAnalysis& runtime);

}  // namespace oomscope::analysis
