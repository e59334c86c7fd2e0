// The MCP `simulate` tool (mcp_tools.h): the options of `oomscope-cli simulate` as arguments, read by the
// command's own parser (sim_options.h) and run by its own run (sim_run.h).

#include <algorithm>
#include <cctype>

#include "app/cli/mcp_tools.h"
#include "app/cli/sim_run.h"

namespace oomscope::cli {

namespace {

using mcp::Json;

// "--on-floor" -> "on_floor".
std::string argument_name(const char* option) {
  std::string name = std::string(option).substr(2);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// The options a tool offers: all but --trace (a tool writes no file its caller did not name as output,
// and a trace is not part of the answer).
bool offered(const SimOptionDef& d) { return std::string(d.name) != "--trace"; }

// A placeholder of lower-case alternatives ("oom-only|everything|runtime-error") is an enum.
Json value_schema(const SimOptionDef& d) {
  std::string help = d.help;
  std::replace(help.begin(), help.end(), '\n', ' ');
  const std::string value = d.value;
  const bool choices =
      value.find('|') != std::string::npos &&
      std::none_of(value.begin(), value.end(), [](unsigned char c) { return std::isupper(c); });
  if (!choices) return mcp_string_or_number(help + " [" + value + "]");
  Json names = Json::array();
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t bar = std::min(value.find('|', at), value.size());
    names.push_back(value.substr(at, bar - at));
    at = bar + 1;
  }
  return Json{{"type", "string"}, {"enum", std::move(names)}, {"description", help}};
}

Json input_schema() {
  Json props = Json::object();
  for (const SimOptionDef& d : sim_option_defs())
    if (offered(d)) props[argument_name(d.name)] = value_schema(d);
  return Json{{"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
}

// The arguments as the command line the command would have been given: the preset, then the model, then
// every other option, so that explicit options override both (as after --model on the command line).
std::vector<std::string> command_line(const Json& args) {
  std::vector<std::string> line;
  const auto add = [&](const SimOptionDef& d) {
    const std::string name = argument_name(d.name);
    if (!args.contains(name)) return;
    line.push_back(d.name);
    line.push_back(mcp_arg_text(args[name]));
  };
  const auto defs = sim_option_defs();
  for (const char* first : {"--preset", "--model"})
    for (const SimOptionDef& d : defs)
      if (std::string(d.name) == first) add(d);
  for (const SimOptionDef& d : defs)
    if (offered(d) && std::string(d.name) != "--preset" && std::string(d.name) != "--model") add(d);
  return line;
}

}  // namespace

mcp::Tool mcp_simulate_tool() {
  mcp::Tool t;
  t.name = "simulate";
  t.title = "Simulate split-and-retry training";
  t.description =
      "Runs oomscope's split-and-retry simulator headless and returns its totals (`oomscope-cli simulate "
      "--json`): the batch is tried whole, split per scene when it fails, then bisected in space, under a "
      "GPU memory budget; the totals say what that costs (attempts, OOMs, overhead) and what reached the "
      "optimizer step, next to the baselines. Every figure is derived by the simulator from the options "
      "(and a calibrated model file when given); none is measured on a GPU. Options are the command's "
      "(--on-floor is on_floor, ...), applied preset first, then model, then the rest. The text ends with "
      "what the command says on stderr (a crash, dropped points).";
  t.input_schema = input_schema();
  t.output_schema = Json{{"type", "object"},
                         {"properties",
                          {{"config", {{"type", "object"}}},
                           {"totals", {{"type", "object"}}},
                           {"baselines", {{"type", "object"}}},
                           {"crash", {{"type", Json::array({"object", "null"})}}}}},
                         {"required", {"config", "totals", "baselines", "crash"}}};
  t.annotations = Json{{"readOnlyHint", true}, {"destructiveHint", false}, {"openWorldHint", false}};
  t.run = [](const Json& args, mcp::ToolContext& ctx) {
    return mcp_guard([&] {
      const SimOptions options = parse_sim_options(command_line(args));
      SimOutcome run = run_simulation(options, ctx.stop);
      mcp::ToolResult r = mcp_result(std::move(run.out));
      for (const std::string& w : options.warnings) r.text += "warning: " + w + "\n";
      for (const std::string& note : run.notes) r.text += note + "\n";
      return r;
    });
  };
  return t;
}

}  // namespace oomscope::cli
