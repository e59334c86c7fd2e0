// The list of MCP tools and the helpers they share (mcp_tools.h).

#include "app/cli/mcp_tools.h"

#include <CLI/Error.hpp>
#include <cmath>
#include <cstdint>

#include "app/cli/command.h"

namespace oomscope::cli {

std::vector<mcp::Tool> mcp_tools() {
  return {mcp_info_tool(),   mcp_report_tool(),   mcp_diff_tool(),
          mcp_whatif_tool(), mcp_simulate_tool(), mcp_live_tool()};
}

mcp::ToolResult mcp_result(Rendered out) {
  mcp::ToolResult r;
  r.text = std::move(out.text);
  if (out.json.is_array())
    r.structured = mcp::Json{{"documents", std::move(out.json)}};
  else
    r.structured = std::move(out.json);
  return r;
}

mcp::ToolResult mcp_guard(const std::function<mcp::ToolResult()>& f) {
  try {
    return f();
  } catch (const UsageError& e) {
    throw mcp::ToolError(e.message);
  } catch (const CLI::Error& e) {  // a ValidationError thrown by an option's check (parse_count, ...)
    throw mcp::ToolError(e.what());
  }
}

std::string mcp_arg_text(const mcp::Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {  // 5.0 is the integer 5 in JSON Schema: written as the CLI would see it
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.007199254740992e15)
      return std::to_string(static_cast<std::int64_t>(d));
  }
  return value.dump();
}

mcp::Json mcp_string_or_number(const std::string& description) {
  return mcp::Json{{"type", mcp::Json::array({"string", "number"})}, {"description", description}};
}

}  // namespace oomscope::cli
