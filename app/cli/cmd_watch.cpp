// `oomscope-cli watch ENDPOINT... [--record FILE] [--alert RULE]... [--duration S] [--json]`: attaches to
// live agents (one endpoint per rank), shows a live table on a terminal or JSON lines when piped.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/live_format.h"
#include "app/cli/live_options.h"
#include "core/live/client.h"
#include "core/live/session.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted.store(true); }

struct WatchOptions {
  std::vector<std::string> endpoints;
  std::string record;
  std::vector<live::AlertRule> rules;
  double duration = 0;
  double stall_s = -1;
  double interval_ms = -1;
  std::string token;
  bool json = false;
};

int run_watch(const WatchOptions& o) {
  std::vector<live::Endpoint> endpoints;
  for (const std::string& e : o.endpoints) {
    try {
      endpoints.push_back(live::parse_endpoint(e));
    } catch (const Error& err) {
      throw UsageError{err.message()};
    }
  }
  const std::string& record = o.record;
  const std::vector<live::AlertRule>& rules = o.rules;
  const double duration = o.duration;
  const bool json = o.json || !::isatty(STDOUT_FILENO);
  live::ClientOptions options;
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) options.token = t;
  if (!o.token.empty()) options.token = o.token;
  if (o.stall_s >= 0) options.stall_timeout_ms = std::max(100, static_cast<int>(o.stall_s * 1000));
  if (o.interval_ms >= 0) options.interval_ms = static_cast<int>(o.interval_ms);
  if (endpoints.empty()) throw UsageError{"give at least one endpoint (HOST:PORT or unix:PATH)"};

  live::LiveSession session;
  for (auto& r : rules) session.add_rule(r);
  JsonLinePrinter printer(stdout);
  if (json) session.set_alert_callback([&](const live::Alert& a) { printer.alert(a); });
  if (!record.empty()) session.start_recording(record);
  TeeSink tee(session, printer);
  live::LiveClient client(endpoints, json ? static_cast<live::LiveSink&>(tee) : session, options);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  client.start();
  const auto start = std::chrono::steady_clock::now();
  auto next_draw = start;
  while (!g_interrupted.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (duration > 0 && now - start >= std::chrono::duration<double>(duration)) break;
    if (!json && now >= next_draw) {
      const std::string screen = session.read([](const live::Store& s, const live::AlertEngine& al) {
        return live_table(s) + live_alerts_text(al, 8);
      });
      std::cout << "\x1b[H\x1b[2J" << screen << (record.empty() ? "" : "recording to " + record + "\n")
                << std::flush;
      next_draw = now + std::chrono::milliseconds(500);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  client.stop();
  session.stop_recording();
  if (!json)
    std::cout << session.read(
        [](const live::Store& s, const live::AlertEngine& al) { return live_summary(s, al); });
  return 0;
}

Runner define_watch(CLI::App& app) {
  auto o = std::make_shared<WatchOptions>();
  app.footer(
      "Attaches to live agents (python3 -m oomscope_agent, or a trainer run with --serve), one endpoint per\n"
      "rank. Lost connections are retried and the gap is marked. On a terminal a table refreshes twice a\n"
      "second; when stdout is not a terminal (or with --json) every sample, event, status change and alert\n"
      "is printed as one JSON line with the rank (endpoint index) added. Ctrl-C stops.");
  app.add_option("ENDPOINT", o->endpoints, "HOST:PORT or unix:PATH, one per rank")->required();
  app.add_option("--record", o->record,
                 "record the session (append-only, flushed every second); open it with\n"
                 "`oomscope-cli replay FILE` or `oomscope FILE`")
      ->type_name("FILE");
  add_alert_option(app, o->rules);
  add_non_negative(app, "--duration", o->duration, "S", "stop after S seconds (default: until interrupted)");
  app.add_option("--token", o->token, "the agent's token (default: $OOMSCOPE_TOKEN)")->type_name("TOKEN");
  add_non_negative(app, "--interval", o->interval_ms, "MS",
                   "ask the agents for a sample every MS milliseconds");
  add_non_negative(app, "--stall", o->stall_s, "S",
                   "drop and retry a connection silent for S seconds (default 10)");
  app.add_flag("--json", o->json, "JSON lines even on a terminal");
  return [o] { return run_watch(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"watch", "attach to live agents: table or JSON lines, alerts, recording",
                         define_watch});

}  // namespace oomscope::cli
