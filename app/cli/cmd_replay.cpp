// `oomscope-cli replay FILE [--json] [--alert RULE]...`: opens a live recording (made by `watch --record`
// or the GUI's Live page) and prints its summary, or every recorded line as JSON lines.

#include <cstdio>
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/forecast_format.h"
#include "app/cli/live_format.h"
#include "app/cli/live_options.h"
#include "core/live/client/replay.h"
#include "core/live/client/session.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

struct ReplayOptions {
  std::string path;
  bool json = false;
  bool table = false;
  std::vector<live::AlertRule> rules;
};

int run_replay(const ReplayOptions& o) {
  const std::string& path = o.path;
  const bool json = o.json;
  const std::vector<live::AlertRule>& rules = o.rules;
  live::LiveSession session;
  for (auto& r : rules) session.add_rule(r);
  JsonLinePrinter printer(stdout);
  live::ReplayInfo info;
  if (json) {
    session.set_alert_callback([&](const live::Alert& a) { printer.alert(a); });
    session.set_forecast_callback([&](int rank, const live::Forecast& f) { printer.forecast(rank, f); });
    TeeSink tee(session, printer);
    info = live::replay_recording(path, tee);
    if (o.table)
      std::fputs(
          session.read([](const live::Store& s, const live::AlertEngine&) { return live_table_json(s); })
              .c_str(),
          stdout);
  } else {
    info = live::replay_recording(path, session);
    std::cout << path << ": " << info.samples << " samples, " << info.records << " records, "
              << info.file_bytes << " bytes\n";
    std::cout << session.read(
        [](const live::Store& s, const live::AlertEngine& al) { return live_summary(s, al); });
    std::cout << session.read_forecasts(
        [](const live::Store& s, const live::ForecastTracker& f) { return forecast_summary(s, f); });
  }
  if (info.truncated) std::cerr << path << ": " << info.note << "\n";
  return 0;
}

Runner define_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  app.footer(
      "Opens a live recording and prints, per rank, the agent, the sample span, peaks, events, connection\n"
      "gaps and skipped lines, and the alerts the given rules raise over it. A recording cut short by a "
      "crash\n"
      "opens up to its last flush and says so. The OOM forecast [derived] is given as it stood at each "
      "point\n"
      "(--json: {\"type\":\"forecast\"} lines, at most one a second of the recording per rank), and for an\n"
      "oom event how many steps before it the forecast first named its step within 15 %.");
  app.add_option("FILE", o->path, "a live recording (watch --record, or the GUI's Live page)")
      ->required()
      ->type_name("FILE");
  app.add_flag("--json", o->json,
               "every recorded line as JSON (the same lines `watch --json` prints, forecasts included)");
  app.add_flag("--table", o->table,
               "with --json: end with one {\"type\":\"table\",\"ranks\":[...]} line, the rank table at the "
               "end");
  add_alert_option(app, o->rules);
  return [o] { return run_replay(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"replay", "open a live recording: per-rank summary or JSON lines", define_replay});

}  // namespace oomscope::cli
