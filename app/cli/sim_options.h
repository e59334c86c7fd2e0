#pragma once
// The options of `oomscope-cli simulate`: their names, placeholders and help, and the parser that reads
// them in the order given, so that toggles override the preset and options after --model override the
// model. The command and the MCP `simulate` tool (app/cli/mcp_sim_tool.cpp) both read them here.

#include <span>
#include <string>
#include <vector>

#include "core/sim/simulator.h"

namespace oomscope::cli {

struct SimOptions {
  sim::SimConfig config;
  std::string trace;  // write the event trace here (the command's --trace; empty: none)
  bool json = false;
  std::vector<std::string> warnings;  // said about the options, before the run ("--bug-kind none ...")
};

// Reads "--name value" pairs; throws UsageError naming the option for a bad value, oomscope::Error for a
// model file that cannot be read.
SimOptions parse_sim_options(const std::vector<std::string>& args);

// One option of simulate: name ("--budget"), value placeholder ("BYTES", "a|b|c"), help.
struct SimOptionDef {
  const char* name;
  const char* value;
  const char* help;
};
std::span<const SimOptionDef> sim_option_defs();

}  // namespace oomscope::cli
