#pragma once
// An MCP tool as the server sees it: its name, a description for the model, the JSON Schemas of its
// arguments and of its structured result, and the function that runs it. The function runs on a worker
// thread with the call's progress sink and stop token; it returns a ToolResult or throws ToolError,
// oomscope::Error (both become a result with isError) or oomscope::Cancelled.

#include <functional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "core/mcp/json_rpc.h"
#include "core/util/progress.h"

namespace oomscope::mcp {

struct ToolContext {
  ProgressSink& progress;
  std::stop_token stop;
};

struct ToolResult {
  std::string text;  // the human text (the CLI's text output for the same arguments)
  Json structured;   // an object: the CLI's --json document; null for none
  bool is_error = false;
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema;   // checked before the call (schema_check.h)
  Json output_schema;  // what `structured` follows; null for none
  Json annotations;    // readOnlyHint, openWorldHint, ...; null for none
  std::function<ToolResult(const Json& arguments, ToolContext& context)> run;
};

// A tool's refusal in the words the model reads (bad arguments found by the tool, a busy resource).
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace oomscope::mcp
