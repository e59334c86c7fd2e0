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
#include "core/live/client.h"
#include "core/live/session.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted.store(true); }

const char kUsage[] =
    "usage: oomscope-cli watch ENDPOINT... [--record FILE] [--alert RULE]... [--duration S] [--json]\n"
    "                          [--token TOKEN] [--interval MS] [--stall S]\n"
    "\n"
    "Attaches to live agents (python3 -m oomscope_agent, or a trainer run with --serve), one endpoint per\n"
    "rank: HOST:PORT or unix:PATH. Lost connections are retried and the gap is marked. On a terminal a "
    "table\n"
    "refreshes twice a second; when stdout is not a terminal (or with --json) every sample, event, status\n"
    "change and alert is printed as one JSON line with the rank (endpoint index) added. Ctrl-C stops.\n"
    "\n"
    "  --record FILE   record the session (append-only, flushed every second); open it with\n"
    "                  `oomscope-cli replay FILE` or `oomscope FILE`\n"
    "  --alert RULE    driver>22000MB, growth:driver>500MB, moves:ooms, gap>4GB, shapes-rising[:N],\n"
    "                  event:oom (repeatable; see docs/live-protocol.md)\n"
    "  --duration S    stop after S seconds (default: until interrupted)\n"
    "  --token TOKEN   the agent's token (default: $OOMSCOPE_TOKEN)\n"
    "  --interval MS   ask the agents for a sample every MS milliseconds\n"
    "  --stall S       drop and retry a connection silent for S seconds (default 10)\n"
    "  --json          JSON lines even on a terminal\n";

double parse_number(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || v < 0)
    throw UsageError{option + " needs a non-negative number, not '" + value + "'"};
  return v;
}

int run_watch(const std::vector<std::string>& args) {
  std::vector<live::Endpoint> endpoints;
  std::string record;
  std::vector<live::AlertRule> rules;
  double duration = 0;
  bool json = !::isatty(STDOUT_FILENO);
  live::ClientOptions options;
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) options.token = t;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    try {
      if (a == "--json")
        json = true;
      else if (a == "--record")
        record = value();
      else if (a == "--alert")
        rules.push_back(live::parse_alert_rule(value()));
      else if (a == "--duration")
        duration = parse_number(a, value());
      else if (a == "--token")
        options.token = value();
      else if (a == "--stall")
        options.stall_timeout_ms = std::max(100, static_cast<int>(parse_number(a, value()) * 1000));
      else if (a == "--interval")
        options.interval_ms = static_cast<int>(parse_number(a, value()));
      else if (a.starts_with("-"))
        throw UsageError{"unknown option '" + a + "'"};
      else
        endpoints.push_back(live::parse_endpoint(a));
    } catch (const Error& e) {
      throw UsageError{e.message()};
    }
  }
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

}  // namespace

OOMSCOPE_COMMAND(Command{"watch", "attach to live agents: table or JSON lines, alerts, recording", kUsage,
                         run_watch});

}  // namespace oomscope::cli
