// The MCP `whatif` tool (mcp_tools.h): the allocator replay of a PyTorch snapshot, `oomscope-cli whatif`,
// with the command's own checks of --capacity and --set (whatif_document.h).

#include "app/cli/mcp_tools.h"
#include "app/cli/whatif_document.h"

namespace oomscope::cli {

namespace {

using mcp::Json;

Json input_schema() {
  return Json{
      {"type", "object"},
      {"properties",
       {{"path",
         {{"type", "string"},
          {"minLength", 1},
          {"description",
           "a PyTorch memory snapshot with an allocation trace (torch.cuda.memory._dump_snapshot after "
           "_record_memory_history; .pickle, or its JSON form)"}}},
        {"capacity", mcp_string_or_number("the most the allocator may reserve: bytes, or with a unit (24GiB, "
                                          "80GB; docs/byte-sizes.md); default: as recorded (unlimited, or "
                                          "what the trace's oom entry implies)")},
        {"settings",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"minLength", 1}}},
          {"maxItems", 16},
          {"description",
           "allocator settings to change, as PYTORCH_CUDA_ALLOC_CONF spells them: expandable_segments:True, "
           "max_split_size_mb:N, roundup_power2_divisions:N, garbage_collection_threshold:F, "
           "max_non_split_rounding_mb:N"}}},
        {"device",
         {{"type", "integer"},
          {"description", "the device whose trace to replay (default: the one with the longest trace)"}}}}},
      {"required", {"path"}},
      {"additionalProperties", false}};
}

Json output_schema() {
  const Json nullable_int{{"type", Json::array({"integer", "null"})}};
  const Json scenario{{"type", "object"},
                      {"properties",
                       {{"name", {{"type", "string"}}},
                        {"kind", {{"type", "string"}, {"enum", {"recorded", "requested", "single_setting"}}}},
                        {"settings", {{"type", "object"}}},
                        {"capacity_bytes", nullable_int},
                        {"peak_reserved_bytes", {{"type", "integer"}}},
                        {"peak_allocated_bytes", {{"type", "integer"}}},
                        {"saved_reserved_bytes", nullable_int},
                        {"first_oom", {{"type", Json::array({"object", "null"})}}},
                        {"validation", {{"type", "object"}}}}},
                      {"required",
                       {"name", "kind", "settings", "capacity_bytes", "peak_reserved_bytes",
                        "peak_allocated_bytes", "saved_reserved_bytes", "first_oom"}}};
  return Json{
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}}},
        {"device", {{"type", "integer"}}},
        {"trace_entries", {{"type", "integer"}}},
        {"settings_recorded", {{"type", "boolean"}}},
        {"recorded_settings", {{"type", "object"}}},
        {"capacity_bytes", nullable_int},
        {"capacity_source", {{"type", "string"}, {"enum", {"unlimited", "option", "oom_entry"}}}},
        {"validated", {{"type", "boolean"}}},
        {"predictions", {{"type", "boolean"}}},
        {"scenarios", {{"type", "array"}, {"items", scenario}, {"minItems", 1}}},
        {"best", {{"type", Json::array({"string", "null"})}}},
        {"min_capacity", {{"type", "array"}}},
        {"oom_explanation", {{"type", Json::array({"object", "null"})}}},
        {"notes", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
      {"required",
       {"file", "device", "trace_entries", "recorded_settings", "capacity_bytes", "capacity_source",
        "validated", "predictions", "scenarios", "best", "min_capacity", "oom_explanation", "notes"}}};
}

mcp::ToolResult run(const Json& args, mcp::ToolContext& ctx) {
  allocator::WhatIfOptions options;
  if (args.contains("capacity")) options.capacity = parse_whatif_capacity(mcp_arg_text(args["capacity"]));
  if (args.contains("settings")) {
    for (const Json& kv : args["settings"]) options.settings.push_back(kv.get<std::string>());
    check_whatif_settings(options.settings);
  }
  if (args.contains("device")) options.device = args["device"].get<std::int64_t>();
  return mcp_result(whatif_document(args["path"].get<std::string>(), options, ctx.progress, ctx.stop));
}

}  // namespace

mcp::Tool mcp_whatif_tool() {
  mcp::Tool t;
  t.name = "whatif";
  t.title = "What would have fit: replay a PyTorch snapshot";
  t.description =
      "Replays the allocation trace of a PyTorch memory snapshot through a model of PyTorch's CUDA caching "
      "allocator (`oomscope-cli whatif`, docs/allocator-model.md) to answer what to change: another "
      "PYTORCH_CUDA_ALLOC_CONF (expandable_segments, max_split_size_mb, roundup_power2_divisions, "
      "garbage_collection_threshold) or another capacity. The replay under the snapshot's own settings is "
      "checked against what the allocator recorded (segment events, block addresses, final segments: "
      "`scenarios[0].validation`); only when it matched (`predictions` true) are the other scenarios' "
      "figures predictions. Per scenario: peak reserved and allocated, reserved saved against the recorded "
      "run, and the first allocation that would fail (trace index, size, time, the largest free block in "
      "its pool, what a retry released). Without capacity or settings: the standard scenarios (each single "
      "setting that can matter, and the smallest capacity without an OOM under the recorded and the best "
      "setting). For a trace with an oom entry, how the allocator saw that failure. Every figure is derived "
      "by replay, except the trace length and the recorded settings (read). The structured result is "
      "`oomscope-cli whatif PATH [--capacity C] [--set K:V]... [--device N] --json -`.";
  t.input_schema = input_schema();
  t.output_schema = output_schema();
  t.annotations = Json{{"readOnlyHint", true}, {"destructiveHint", false}, {"openWorldHint", false}};
  t.run = [](const Json& args, mcp::ToolContext& ctx) { return mcp_guard([&] { return run(args, ctx); }); };
  return t;
}

}  // namespace oomscope::cli
