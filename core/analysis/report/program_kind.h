#pragma once
// Whether the program of a capture is eager (op by op) or a jitted step, decided for the program, not the
// analysed module (docs/report-rules.md, "Eager programs"): how many modules ran, whether any of them is a
// training step (has a backward pass), and how the executions spread over the modules.

#include <cstdint>
#include <span>
#include <string>

namespace oomscope::analysis {

struct ModuleRow;

struct ProgramKind {
  bool eager = false;                 // derived
  std::int64_t modules = 0;           // in the capture (read)
  std::int64_t modules_executed = 0;  // with at least one execution (measured)
  std::int64_t executions = 0;        // executions of those modules (measured)
  std::int64_t most_executions = 0;   // of the most executed module (measured)
  std::string most_executed;          // its name(program id)
  std::int64_t steps_executed = 0;    // executed modules with a backward pass (derived)
  std::string step;                   // the first of them, name(program id)
};

// Eager when the capture has at least 5 modules, at least 3 of them ran, none that ran has a backward pass
// (no training step) and no module ran more than half of the executions (a loop over one jitted step
// runs that step most of the time).
ProgramKind decide_program_kind(std::span<const ModuleRow> modules);

}  // namespace oomscope::analysis
