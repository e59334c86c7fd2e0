#pragma once
// One headless simulator run as `oomscope-cli simulate` does it: validated options, the optional trace file,
// the totals as text and JSON, the exit code and what the command says on stderr. The command prints it;
// the MCP `simulate` tool returns it.

#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/other_formats.h"
#include "app/cli/sim_options.h"

namespace oomscope::cli {

struct SimOutcome {
  Rendered out;                    // print_sim_report and sim_report_json
  int exit_code = 0;               // 0, or 4 (crash) / 6 (nothing trained under --catch oom-only)
  std::vector<std::string> notes;  // lines for stderr after the totals ("warning: ...", the crash)
};

// Throws UsageError for options the simulator refuses, oomscope::Error for files (sizes, trace),
// oomscope::Cancelled when `stop` is requested.
SimOutcome run_simulation(const SimOptions& options, const std::stop_token& stop);

}  // namespace oomscope::cli
