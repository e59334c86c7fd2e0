#pragma once
// The tools `oomscope-cli mcp` serves. Each runs the function its CLI command runs (command_documents.h,
// sim_run.h, live_documents.h), so its structured result is the command's --json document for the same
// arguments and its text is the command's text output. The argument values go through the CLI's own
// parsers (counts, byte sizes, durations, the simulator's options), so they are accepted and refused in
// the same words. docs/mcp.md describes every tool.

#include <functional>
#include <string>
#include <vector>

#include "app/cli/other_formats.h"
#include "core/mcp/tool.h"

namespace oomscope::cli {

// Every tool, in the order tools/list gives them.
std::vector<mcp::Tool> mcp_tools();

// The tools, one factory each (mcp_file_tools.cpp, mcp_whatif_tool.cpp, mcp_sim_tool.cpp,
// mcp_live_tool.cpp).
mcp::Tool mcp_info_tool();
mcp::Tool mcp_report_tool();
mcp::Tool mcp_diff_tool();
mcp::Tool mcp_whatif_tool();
mcp::Tool mcp_simulate_tool();
mcp::Tool mcp_live_tool();

// Helpers the tools share (mcp_tools.cpp).
// A command's output as a tool result; a JSON array (report of several snapshots) becomes
// {"documents": [...]}, since structured content is an object.
mcp::ToolResult mcp_result(Rendered out);
// Runs `f`, turning the CLI's usage errors (UsageError, CLI11's ValidationError) into mcp::ToolError
// with the CLI's message.
mcp::ToolResult mcp_guard(const std::function<mcp::ToolResult()>& f);
// An argument as the text the CLI would have been given: a string as it is, a number as JSON writes it.
std::string mcp_arg_text(const mcp::Json& value);
// The JSON Schema of a value given as a string or a number (byte sizes, durations, counts).
mcp::Json mcp_string_or_number(const std::string& description);

}  // namespace oomscope::cli
