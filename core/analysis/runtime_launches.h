#pragma once
// Internal to runtime_executions*.cpp: the program each host execution launched, from the driver-API
// launches inside its span and the device events their correlation ids name.

#include <vector>

#include "core/analysis/runtime_executions.h"

namespace oomscope::analysis {

// The program of each host execution from the kernels it launched: the driver-API launches inside its
// span carry program_id themselves (roctracer) or name, by correlation_id, a device event that does
// (CUPTI). A launch's device_id names its device plane; when the execution's own device is known (from the
// allocator it allocated from), only launches to that device count, and the device event must be on it.
// Launches of several programs that cannot be told apart leave the execution ambiguous: it keeps the
// name-and-order match and records the programs. A found id replaces the name-and-order guess and may name
// an execution whose module span is missing; such an execution did launch a kernel.
// Each launch is resolved once (its plane and program), so overlapping executions cost a scan of their
// launches, not a lookup per launch and execution.
void match_by_program_id(const ExecutionInput& in, std::vector<RuntimeExecution>& out);

}  // namespace oomscope::analysis
