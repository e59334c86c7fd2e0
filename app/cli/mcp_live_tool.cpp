// The MCP `live` tool (mcp_tools.h): attach to live agents or a Prometheus server for a few seconds, or
// read a recording, and return the rank table the live commands end with, each rank's OOM forecast in it
// (live_documents.h).

#include "app/cli/live_documents.h"
#include "app/cli/mcp_tools.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

using mcp::Json;

// The longest attach one call may take: a tool call should answer within a client's usual timeout.
constexpr int kMaxSeconds = 60;
constexpr int kDefaultSeconds = 3;

Json input_schema() {
  const Json text{{"type", "string"}, {"minLength", 1}};
  return Json{
      {"type", "object"},
      {"properties",
       {{"recording",
         {{"type", "string"},
          {"minLength", 1},
          {"description", "a live recording (watch --record, or the GUI's Live page) to read"}}},
        {"endpoints",
         {{"type", "array"},
          {"items", text},
          {"minItems", 1},
          {"maxItems", 4096},
          {"description", "agents to attach to, one per rank: HOST:PORT or unix:PATH"}}},
        {"prometheus",
         {{"type", "string"},
          {"minLength", 1},
          {"description", "a Prometheus server scraping the agents: http://HOST:9090"}}},
        {"seconds",
         {{"type", "number"},
          {"exclusiveMinimum", 0},
          {"maximum", kMaxSeconds},
          {"description", "how long to attach (default 3)"}}},
        {"selector", {{"type", "string"}, {"description", "Prometheus label matchers, e.g. job=\"train\""}}},
        {"since", mcp_string_or_number("Prometheus history to read first: 90s, 10m, 1h, 2d or seconds")},
        {"poll", mcp_string_or_number("Prometheus: seconds between polls (default 1)")},
        {"interval", mcp_string_or_number("ask the agents for a sample every MS milliseconds")},
        {"stall", mcp_string_or_number("drop and retry a connection silent for S seconds (default 10)")},
        {"token", {{"type", "string"}, {"description", "the agents' token (default: $OOMSCOPE_TOKEN)"}}},
        {"alerts",
         {{"type", "array"},
          {"items", text},
          {"maxItems", 64},
          {"description",
           "alert rules (docs/live-protocol.md): driver>22000MB, growth:driver>500MB, moves:ooms, gap>4GB, "
           "shapes-rising[:N], event:oom"}}}}},
      {"anyOf", Json::array({Json{{"required", {"recording"}}}, Json{{"required", {"endpoints"}}},
                             Json{{"required", {"prometheus"}}}})},
      {"additionalProperties", false}};
}

// The OOM forecast of one rank, as `watch --json` writes it (app/cli/forecast_format.h, docs/live.md).
Json forecast_schema() {
  const Json nullable_number{{"type", Json::array({"number", "null"})}};
  return Json{
      {"type", "object"},
      {"description",
       "the rank's OOM forecast [derived]: the step (and seconds) at which its limiting figure crosses "
       "its limit, with a range, or why none (state no_oom, not_enough_history, no_limit)"},
      {"properties",
       {{"state", {{"type", "string"}}},
        {"oom_at_step", nullable_number},
        {"oom_in_seconds", nullable_number},
        {"range", {{"type", "object"}}},
        {"limit", {{"type", Json::array({"object", "null"})}}},
        {"driver", {{"type", "string"}}},
        {"driver_kind", {{"type", "string"}}},
        {"at_step", nullable_number},
        {"t", {{"type", "integer"}}},
        {"basis", {{"type", "object"}}},
        {"tag", {{"type", "string"}, {"const", "derived"}}}}},
      {"required", {"state", "oom_at_step", "oom_in_seconds", "limit", "driver", "basis", "tag"}}};
}

Json output_schema() {
  const Json rank{{"type", "object"},
                  {"properties",
                   {{"index", {{"type", "integer"}}},
                    {"label", {{"type", "string"}}},
                    {"endpoint", {{"type", "string"}}},
                    {"status", {{"type", "string"}, {"enum", {"up", "down", "waiting"}}}},
                    {"samples", {{"type", "integer"}}},
                    {"headroom", {{"type", "integer"}}},
                    {"capacity", {{"type", "integer"}}},
                    {"last", {{"type", "object"}}},
                    {"forecast", forecast_schema()}}},
                  {"required", {"index", "label", "endpoint", "status", "samples"}}};
  return Json{{"type", "object"},
              {"properties",
               {{"type", {{"type", "string"}, {"enum", {"table"}}}},
                {"t", {{"type", "integer"}}},
                {"ranks", {{"type", "array"}, {"items", rank}}}}},
              {"required", {"type", "t", "ranks"}}};
}

std::vector<live::AlertRule> rules_of(const Json& args) {
  std::vector<live::AlertRule> rules;
  if (args.contains("alerts"))
    for (const Json& text : args["alerts"]) {
      try {
        rules.push_back(live::parse_alert_rule(text.get<std::string>()));
      } catch (const Error& e) {
        throw mcp::ToolError("--alert: " + e.message());  // as the command's option check words it
      }
    }
  return rules;
}

mcp::ToolResult run(const Json& args, mcp::ToolContext& ctx) {
  const int given = args.contains("recording") + args.contains("endpoints") + args.contains("prometheus");
  if (given != 1) throw mcp::ToolError("give one of recording, endpoints or prometheus");
  const std::vector<live::AlertRule> rules = rules_of(args);
  if (args.contains("recording"))
    return mcp_result(replay_document(args["recording"].get<std::string>(), rules, ctx.stop));
  WatchSourceOptions o;
  if (args.contains("endpoints"))
    for (const Json& e : args["endpoints"]) o.sources.push_back(e.get<std::string>());
  if (args.contains("prometheus")) {
    const std::string server = args["prometheus"].get<std::string>();
    o.sources.push_back(server.rfind("prometheus:", 0) == 0 ? server : "prometheus:" + server);
  }
  o.duration = mcp_arg_text(args.contains("seconds") ? args["seconds"] : Json(kDefaultSeconds));
  const std::pair<const char*, std::string WatchSourceOptions::*> text_options[] = {
      {"selector", &WatchSourceOptions::selector}, {"since", &WatchSourceOptions::since},
      {"poll", &WatchSourceOptions::poll},         {"interval", &WatchSourceOptions::interval},
      {"stall", &WatchSourceOptions::stall},       {"token", &WatchSourceOptions::token}};
  for (const auto& [key, field] : text_options)
    if (args.contains(key)) o.*field = mcp_arg_text(args[key]);
  const WatchSources sources = parse_watch_sources(o);
  return mcp_result(attach_document(sources, rules, ctx.progress, ctx.stop));
}

}  // namespace

mcp::Tool mcp_live_tool() {
  mcp::Tool t;
  t.name = "live";
  t.title = "Live ranks and their headroom";
  t.description =
      "Attaches to live agents (python3 -m oomscope_agent, `oomscope-cli serve`, a trainer run with --serve) "
      "or to a Prometheus server that scrapes them, for a few seconds, or reads a live recording, and "
      "returns the rank table the live commands end with (`oomscope-cli watch ... --json --table`, `replay "
      "FILE --json --table`): per rank its status, last sample (allocated, reserved, driver/device used, "
      "RSS, OOMs, retries: measured by the agent), its headroom (capacity minus device used, derived) and "
      "its OOM forecast (derived, docs/live.md: the optimizer step and the seconds at which the limiting "
      "figure crosses its limit, with a range and what drives it, or why none), least headroom first. "
      "The text is the per-rank summary (peaks, events, gaps, alerts) and each rank's forecast with a few "
      "points of its history and, for an oom event, how many steps before it the forecast named its "
      "step.";
  t.input_schema = input_schema();
  t.output_schema = output_schema();
  t.annotations = Json{{"readOnlyHint", true}, {"destructiveHint", false}, {"openWorldHint", true}};
  t.run = [](const Json& args, mcp::ToolContext& ctx) { return mcp_guard([&] { return run(args, ctx); }); };
  return t;
}

}  // namespace oomscope::cli
