// `oomscope-cli watch ENDPOINT... [--record FILE] [--alert RULE]... [--duration S] [--json]`: attaches to
// live agents (one endpoint per rank), or reads them from a Prometheus server
// (`watch prometheus:http://HOST:9090 --selector 'job="train"'`), shows a live table on a terminal or JSON
// lines when piped.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/forecast_format.h"
#include "app/cli/live_format.h"
#include "app/cli/live_options.h"
#include "app/cli/watch_sources.h"
#include "core/live/client/client.h"
#include "core/live/client/session.h"
#include "core/live/prom/prom_source.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted.store(true); }

struct WatchOptions {
  WatchSourceOptions source;
  std::string record;
  std::vector<live::AlertRule> rules;
  bool json = false;
  bool table = false;
};

int run_watch(const WatchOptions& o) {
  const WatchSources src = parse_watch_sources(o.source);
  const std::vector<live::Endpoint>& endpoints = src.endpoints;
  const std::string& prometheus = src.prometheus;
  const live::PromOptions& prom = src.prom;
  const std::string& record = o.record;
  const std::vector<live::AlertRule>& rules = o.rules;
  const double duration = src.duration_s;
  const bool json = o.json || !::isatty(STDOUT_FILENO);
  const live::ClientOptions& options = src.client;
  live::LiveSession session;
  for (auto& r : rules) session.add_rule(r);
  JsonLinePrinter printer(stdout);
  if (json) {
    session.set_alert_callback([&](const live::Alert& a) { printer.alert(a); });
    session.set_forecast_callback([&](int rank, const live::Forecast& f) { printer.forecast(rank, f); });
  }
  if (!record.empty()) session.start_recording(record);
  TeeSink tee(session, printer);
  live::LiveSink& sink = json ? static_cast<live::LiveSink&>(tee) : session;
  std::unique_ptr<live::LiveClient> client;
  std::unique_ptr<live::PrometheusSource> source;
  if (prometheus.empty())
    client = std::make_unique<live::LiveClient>(endpoints, sink, options);
  else
    source = std::make_unique<live::PrometheusSource>(prometheus, sink, prom);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  if (client) client->start();
  if (source) source->start();
  const auto start = std::chrono::steady_clock::now();
  auto next_draw = start;
  std::string last_error;
  int rc = 0;
  while (!g_interrupted.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (duration > 0 && now - start >= std::chrono::duration<double>(duration)) break;
    std::string source_line;
    if (source) {
      const live::PromStatus st = source->status();
      if (!st.error.empty() && st.error != last_error)
        std::cerr << "oomscope-cli watch: " << st.error << "\n";
      last_error = st.error;
      if (!st.error.empty() && st.ranks == 0) {  // never got anywhere: nothing to watch
        rc = 1;
        break;
      }
      source_line = st.server + " " + prom.selector + ": " + st.phase + ", " + std::to_string(st.ranks) +
                    " ranks" + (st.error.empty() ? "" : "; " + st.error) + "\n";
    }
    if (!json && now >= next_draw) {
      const std::string screen = session.read([](const live::Store& s, const live::AlertEngine& al) {
        return live_table(s) + live_alerts_text(al, 8);
      });
      std::cout << "\x1b[H\x1b[2J" << source_line << screen
                << (record.empty() ? "" : "recording to " + record + "\n") << std::flush;
      next_draw = now + std::chrono::milliseconds(500);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (client) client->stop();
  if (source) source->stop();
  session.stop_recording();
  if (json) {
    if (o.table)
      std::fputs(
          session.read([](const live::Store& s, const live::AlertEngine&) { return live_table_json(s); })
              .c_str(),
          stdout);
  } else {
    std::cout << session.read(
        [](const live::Store& s, const live::AlertEngine& al) { return live_summary(s, al); });
    std::cout << session.read_forecasts(
        [](const live::Store& s, const live::ForecastTracker& f) { return forecast_summary(s, f); });
  }
  return rc;
}

Runner define_watch(CLI::App& app) {
  auto o = std::make_shared<WatchOptions>();
  app.footer(
      "Attaches to live agents (python3 -m oomscope_agent, or a trainer run with --serve), one endpoint per\n"
      "rank: HOST:PORT or unix:PATH. Lost connections are retried and the gap is marked. On a terminal a\n"
      "table refreshes twice a second; when stdout is not a terminal (or with --json) every sample, event,\n"
      "status change and alert is printed as one JSON line with the rank (endpoint index) added. Ctrl-C\n"
      "stops.\n"
      "\n"
      "With a Prometheus server (prometheus:http://HOST:9090, docs/prometheus-source.md) the ranks are the\n"
      "agents whose /metrics it scrapes and that match --selector; their history is read first, then new\n"
      "samples every poll. The rank table is sorted by headroom, closest to OOM first, as for direct "
      "attach.\n"
      "\n"
      "Each rank gets an OOM forecast [derived] (docs/live.md): the step at which its limiting figure "
      "crosses\n"
      "its limit, with a range and its driver, or why none. JSON lines carry it as {\"type\":\"forecast\"}\n"
      "lines, at most one a second per rank, and in the --table line.");
  app.add_option("ENDPOINT", o->source.sources,
                 "HOST:PORT or unix:PATH, one per rank; or one prometheus:http://HOST:9090")
      ->required();
  app.add_option("--record", o->record,
                 "record the session (append-only, flushed every second); open it with\n"
                 "`oomscope-cli replay FILE` or `oomscope FILE`")
      ->type_name("FILE");
  add_alert_option(app, o->rules);
  app.add_option("--duration", o->source.duration, "stop after S seconds (default: until interrupted)")
      ->type_name("S");
  app.add_option("--token", o->source.token, "the agent's token (default: $OOMSCOPE_TOKEN)")
      ->type_name("TOKEN");
  app.add_option("--interval", o->source.interval, "ask the agents for a sample every MS milliseconds")
      ->type_name("MS");
  app.add_option("--stall", o->source.stall, "drop and retry a connection silent for S seconds (default 10)")
      ->type_name("S");
  app.add_option("--selector", o->source.selector,
                 "Prometheus: label matchers, e.g. 'job=\"train\"' or '{job=\"train\",host=\"node7\"}'")
      ->type_name("SEL");
  app.add_option("--since", o->source.since,
                 "Prometheus: history to read first: 90s, 10m, 1h, 2d or seconds (default 10m; 0 for\n"
                 "none)")
      ->type_name("D");
  app.add_option("--poll", o->source.poll,
                 "Prometheus: seconds between polls (default 1; match the scrape interval)")
      ->type_name("S");
  app.add_flag("--json", o->json, "JSON lines even on a terminal");
  app.add_flag("--table", o->table,
               "with JSON lines: end with one {\"type\":\"table\",\"ranks\":[...]} line, the rank table");
  return [o] { return run_watch(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"watch", "attach to live agents: table or JSON lines, alerts, recording",
                         define_watch});

}  // namespace oomscope::cli
