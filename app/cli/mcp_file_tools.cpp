// The MCP tools over files: info, report and diff (mcp_tools.h). Each calls the function its command calls
// (command_documents.h) with the arguments parsed by the command's own checks.

#include <optional>

#include "app/cli/command.h"
#include "app/cli/command_documents.h"
#include "app/cli/mcp_tools.h"
#include "core/snapshot/category_rules.h"

namespace oomscope::cli {

namespace {

using mcp::Json;

const Json kReadOnly{{"readOnlyHint", true}, {"destructiveHint", false}, {"openWorldHint", false}};

Json path_schema(const std::string& description) {
  return Json{{"type", "string"}, {"minLength", 1}, {"description", description}};
}

Json top_schema(const std::string& description) {
  return Json{{"type", "integer"}, {"minimum", 1}, {"description", description}};
}

Json categories_schema() {
  return path_schema(
      "PyTorch snapshots: the path of a category rules file (TARGET REGEX -> CATEGORY a line, docs/"
      "categories.md), tried before the built-in rules, as the CLI's --categories FILE; a file that cannot "
      "be used is an error naming the file and the line");
}

// The `categories` argument read as the CLI reads --categories FILE (the same errors, word for word).
std::optional<snapshot::CategoryRules> rules_of(const Json& args) {
  if (!args.contains("categories")) return std::nullopt;
  return snapshot::CategoryRules::read(args["categories"].get<std::string>());
}

}  // namespace

mcp::Tool mcp_info_tool() {
  mcp::Tool t;
  t.name = "info";
  t.title = "What a memory file holds";
  t.description =
      "Says what a file is and what it holds, recognised by content: a JAX/XLA profiler capture "
      "(.xplane.pb[.gz]: hosts, planes, every XLA module's memory plan, allocators, AllocatorRetry waits, "
      "executions), a PyTorch allocator snapshot (.pickle), a Kineto trace, a torch.profiler raw memory "
      "timeline, a JAX device memory profile (pprof) or a live recording (watch --record: ranks, hosts, "
      "duration, samples, steps, OOM events, the verdict). Every figure is read from the file or derived "
      "from it. A folder of one job's per-rank snapshots gives the ranks table, the verdict and the "
      "imbalance (with `categories`, by the user's rules). The structured result is `oomscope-cli info PATH "
      "--json` (docs/cli-json.md).";
  t.input_schema = Json{{"type", "object"},
                        {"properties",
                         {{"path", path_schema("the file or folder to read (any kind above)")},
                          {"categories", categories_schema()}}},
                        {"required", {"path"}},
                        {"additionalProperties", false}};
  t.output_schema = Json{
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}}},
        {"kind", {{"type", "string"}, {"description", "the file's kind, for files that are not captures"}}},
        {"planes", {{"type", "array"}}},
        {"modules", {{"type", "array"}}},
        {"allocators", {{"type", "array"}}},
        {"ranks", {{"type", "array"}}}}},
      {"anyOf", Json::array({Json{{"required", {"file", "planes", "modules", "allocators"}}},
                             Json{{"required", {"file", "kind"}}}, Json{{"required", {"kind", "ranks"}}}})}};
  t.annotations = kReadOnly;
  t.run = [](const Json& args, mcp::ToolContext& ctx) {
    return mcp_guard([&] {
      const std::optional<snapshot::CategoryRules> rules = rules_of(args);
      return mcp_result(
          info_document(args["path"].get<std::string>(), ctx.progress, ctx.stop, rules ? &*rules : nullptr));
    });
  };
  return t;
}

mcp::Tool mcp_report_tool() {
  mcp::Tool t;
  t.name = "report";
  t.title = "Explain a memory peak";
  t.description =
      "The full report of `oomscope-cli report`: for a JAX/XLA capture, the analysed module's memory plan "
      "(parameters, donation, temp, heap peak, the buffers live at the peak with role and source line), "
      "the runtime (allocators, executions, retries, growth per execution) and diagnosis lines with their "
      "fixes; for PyTorch snapshots, Kineto traces, memory timelines and JAX memory profiles, their own "
      "report. Every figure is tagged read (from the file), measured (by the profiler) or derived "
      "(computed by oomscope). Several capture files of one multi-host run are reported per host; a file "
      "that cannot be read is listed under \"failed\" while the others are reported. The structured "
      "result is `oomscope-cli report PATHS... --json -` (docs/report-json.md); several snapshots or "
      "traces give {\"documents\": [one report each]}.";
  t.input_schema = Json{
      {"type", "object"},
      {"properties",
       {{"path", path_schema("one file, or a folder searched for .xplane.pb captures")},
        {"paths",
         {{"type", "array"},
          {"items", path_schema("a file or a folder")},
          {"minItems", 1},
          {"maxItems", 256},
          {"description", "several files (one per host of a multi-host run, or several snapshots)"}}},
        {"module",
         {{"type", Json::array({"string", "integer"})},
          {"description",
           "the module to analyse: name, name(id) or program id (default: the module whose last execution "
           "never started, else the largest executed module, else the largest)"}}},
        {"capacity", mcp_string_or_number("check the plan against a pool of this size: bytes, or with a unit "
                                          "(2.79GiB, 512MiB, 16GB; docs/byte-sizes.md)")},
        {"at",
         {{"type", Json::array({"integer", "string"})},
          {"description",
           "show the analysed module's plan at this program position instead of at its peak: the index of "
           "an event of its heap-simulator trace, from 0, as XProf's memory viewer numbers program order "
           "(the CLI's --at POSITION)"}}},
        {"top", top_schema("rows per list (default 25)")},
        {"categories", categories_schema()}}},
      {"anyOf", Json::array({Json{{"required", {"path"}}}, Json{{"required", {"paths"}}}})},
      {"additionalProperties", false}};
  t.output_schema =
      Json{{"type", "object"},
           {"properties",
            {{"version", {{"type", "integer"}}},
             {"hosts", {{"type", "array"}}},
             {"failed", {{"type", "array"}}},
             {"file", {{"type", "string"}}},
             {"kind", {{"type", "string"}}},
             {"documents", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
           {"anyOf", Json::array({Json{{"required", {"version", "hosts", "failed"}}},
                                  Json{{"required", {"file", "kind"}}}, Json{{"required", {"documents"}}}})}};
  t.annotations = kReadOnly;
  t.run = [](const Json& args, mcp::ToolContext& ctx) {
    return mcp_guard([&] {
      if (args.contains("path") && args.contains("paths"))
        throw mcp::ToolError("give path or paths, not both");
      std::vector<std::string> inputs;
      if (args.contains("path")) inputs.push_back(args["path"].get<std::string>());
      if (args.contains("paths"))
        for (const Json& p : args["paths"]) inputs.push_back(p.get<std::string>());
      analysis::ReportOptions options;
      if (args.contains("module")) options.module = mcp_arg_text(args["module"]);
      if (args.contains("capacity"))
        options.capacity = parse_capacity("--capacity", mcp_arg_text(args["capacity"]));
      if (args.contains("top")) options.top = parse_count("--top", mcp_arg_text(args["top"]));
      if (args.contains("at")) {
        const std::int64_t at = parse_position("--at", mcp_arg_text(args["at"]));
        options.plan_range = std::pair(at, at);
      }
      const std::vector<std::string> files = expand_capture_inputs(inputs);
      const std::optional<snapshot::CategoryRules> rules = rules_of(args);
      const ReportDocument doc = report_document(
          files, options, ctx.progress, ctx.stop, [](const Error&) {}, rules ? &*rules : nullptr);
      if (!doc.reported) {  // as the CLI: every file failed (exit code 1), each named
        std::string all;
        for (const std::string& f : doc.failures) all += (all.empty() ? "" : "\n") + f;
        throw mcp::ToolError(all);
      }
      return mcp_result(doc.out);
    });
  };
  return t;
}

mcp::Tool mcp_diff_tool() {
  mcp::Tool t;
  t.name = "diff";
  t.title = "Compare two PyTorch snapshots, traces, profiles or live recordings";
  t.description =
      "What changed between two PyTorch allocator snapshots (torch.cuda.memory._dump_snapshot): reserved, "
      "allocated and peak memory, the peak's composition by category, and the allocation sites (innermost "
      "user frame) whose bytes at the peak changed most, with diagnosis lines. Figures are read from the "
      "snapshots or derived from them. Two Kineto traces, two JAX memory profiles or two live recordings "
      "(watch --record; per rank: peaks, capacity, OOM events, steps, each run's verdict; no sites: a "
      "recording has no stacks) are compared by what each carries. base is the baseline, other the changed "
      "run, of base's kind. The structured result is `oomscope-cli diff BASE OTHER --json -`.";
  t.input_schema = Json{{"type", "object"},
                        {"properties",
                         {{"base", path_schema("the baseline snapshot (.pickle), Kineto trace, JAX memory "
                                               "profile or live recording")},
                          {"other", path_schema("the changed run's file, of base's kind")},
                          {"top", top_schema("allocation sites to list (default 25)")},
                          {"categories", categories_schema()}}},
                        {"required", {"base", "other"}},
                        {"additionalProperties", false}};
  t.output_schema = Json{{"type", "object"},
                         {"properties",
                          {{"a", {{"type", "string"}}},
                           {"b", {{"type", "string"}}},
                           {"format", {{"type", "string"}}},
                           {"totals", {{"type", "array"}}},
                           {"categories_at_peak", {{"type", "array"}}},
                           {"sites_at_peak", {{"type", "array"}}},
                           {"ranks", {{"type", "array"}}},
                           {"cannot_tell", {{"type", "array"}}},
                           {"diagnosis", {{"type", "array"}}}}},
                         {"required", {"a", "b"}}};
  t.annotations = kReadOnly;
  t.run = [](const Json& args, mcp::ToolContext& ctx) {
    return mcp_guard([&] {
      const std::size_t top = args.contains("top") ? parse_count("--top", mcp_arg_text(args["top"])) : 25;
      const std::optional<snapshot::CategoryRules> rules = rules_of(args);
      return mcp_result(diff_document(args["base"].get<std::string>(), args["other"].get<std::string>(), top,
                                      ctx.progress, ctx.stop, rules ? &*rules : nullptr));
    });
  };
  return t;
}

}  // namespace oomscope::cli
