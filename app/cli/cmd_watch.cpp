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
#include "core/live/client/client.h"
#include "core/live/client/session.h"
#include "core/live/prom/prom_source.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted.store(true); }

double parse_number(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || v < 0)
    throw UsageError{option + " needs a non-negative number, not '" + value + "'"};
  return v;
}

// "90s", "10m", "1h", "2d" or a number of seconds.
std::int64_t parse_duration_s(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  const std::string unit = end ? end : "";
  const double scale = unit.empty() || unit == "s" ? 1
                       : unit == "m"               ? 60
                       : unit == "h"               ? 3600
                       : unit == "d"               ? 86400
                                                   : -1;
  if (value.empty() || end == value.c_str() || scale < 0 || v < 0)
    throw UsageError{option + " needs a duration like 90s, 10m, 1h or 2d, not '" + value + "'"};
  return static_cast<std::int64_t>(v * scale);
}

struct WatchOptions {
  std::vector<std::string> sources;
  std::string record;
  std::vector<live::AlertRule> rules;
  std::string duration, token, interval, stall, selector, since, poll;
  bool json = false;
  bool table = false;
};

int run_watch(const WatchOptions& o) {
  std::vector<live::Endpoint> endpoints;
  std::string prometheus;
  live::PromOptions prom;
  const std::string& record = o.record;
  const std::vector<live::AlertRule>& rules = o.rules;
  double duration = 0;
  const bool json = o.json || !::isatty(STDOUT_FILENO);
  live::ClientOptions options;
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) options.token = t;
  try {
    if (!o.duration.empty()) duration = parse_number("--duration", o.duration);
    if (!o.token.empty()) options.token = o.token;
    if (!o.stall.empty())
      options.stall_timeout_ms = std::max(100, static_cast<int>(parse_number("--stall", o.stall) * 1000));
    if (!o.interval.empty()) options.interval_ms = static_cast<int>(parse_number("--interval", o.interval));
    if (!o.selector.empty()) prom.selector = live::normalise_selector(o.selector);
    if (!o.since.empty()) prom.since_s = parse_duration_s("--since", o.since);
    if (!o.poll.empty())
      prom.poll_ms = std::max(100, static_cast<int>(parse_number("--poll", o.poll) * 1000));
    for (const std::string& a : o.sources) {
      if (live::is_prometheus_source(a)) {
        if (!prometheus.empty()) throw UsageError{"give one Prometheus server, not several"};
        prometheus = live::parse_prometheus_source(a);
      } else {
        endpoints.push_back(live::parse_endpoint(a));
      }
    }
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  if (!prometheus.empty() && !endpoints.empty())
    throw UsageError{"give either a Prometheus server or agent endpoints, not both"};
  if (endpoints.empty() && prometheus.empty())
    throw UsageError{"give at least one endpoint (HOST:PORT or unix:PATH) or prometheus:http://HOST:9090"};

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
  app.add_option("ENDPOINT", o->sources,
                 "HOST:PORT or unix:PATH, one per rank; or one prometheus:http://HOST:9090")
      ->required();
  app.add_option("--record", o->record,
                 "record the session (append-only, flushed every second); open it with\n"
                 "`oomscope-cli replay FILE` or `oomscope FILE`")
      ->type_name("FILE");
  add_alert_option(app, o->rules);
  app.add_option("--duration", o->duration, "stop after S seconds (default: until interrupted)")
      ->type_name("S");
  app.add_option("--token", o->token, "the agent's token (default: $OOMSCOPE_TOKEN)")->type_name("TOKEN");
  app.add_option("--interval", o->interval, "ask the agents for a sample every MS milliseconds")
      ->type_name("MS");
  app.add_option("--stall", o->stall, "drop and retry a connection silent for S seconds (default 10)")
      ->type_name("S");
  app.add_option("--selector", o->selector,
                 "Prometheus: label matchers, e.g. 'job=\"train\"' or '{job=\"train\",host=\"node7\"}'")
      ->type_name("SEL");
  app.add_option("--since", o->since,
                 "Prometheus: history to read first: 90s, 10m, 1h, 2d or seconds (default 10m; 0 for\n"
                 "none)")
      ->type_name("D");
  app.add_option("--poll", o->poll,
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
