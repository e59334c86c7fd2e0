// `oomscope-cli replay FILE [--json] [--alert RULE]...`: opens a live recording (made by `watch --record`
// or the GUI's Live page) and prints its summary, or every recorded line as JSON lines.

#include <iostream>

#include "app/cli/command.h"
#include "app/cli/live_format.h"
#include "core/live/replay.h"
#include "core/live/session.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

const char kUsage[] =
    "usage: oomscope-cli replay FILE [--json] [--alert RULE]...\n"
    "\n"
    "Opens a live recording and prints, per rank, the agent, the sample span, peaks, events, connection\n"
    "gaps and skipped lines, and the alerts the given rules raise over it. A recording cut short by a crash\n"
    "opens up to its last flush and says so.\n"
    "\n"
    "  --json          every recorded line as JSON (the same lines `watch --json` prints)\n"
    "  --alert RULE    as for watch (repeatable)\n";

int run_replay(const std::vector<std::string>& args) {
  std::string path;
  bool json = false;
  std::vector<live::AlertRule> rules;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json")
      json = true;
    else if (a == "--alert") {
      if (i + 1 >= args.size()) throw UsageError{"--alert needs a rule"};
      try {
        rules.push_back(live::parse_alert_rule(args[++i]));
      } catch (const Error& e) {
        throw UsageError{e.message()};
      }
    } else if (a.starts_with("-"))
      throw UsageError{"unknown option '" + a + "'"};
    else if (path.empty())
      path = a;
    else
      throw UsageError{"give one recording"};
  }
  if (path.empty()) throw UsageError{"give a recording file"};

  live::LiveSession session;
  for (auto& r : rules) session.add_rule(r);
  JsonLinePrinter printer(stdout);
  live::ReplayInfo info;
  if (json) {
    session.set_alert_callback([&](const live::Alert& a) { printer.alert(a); });
    TeeSink tee(session, printer);
    info = live::replay_recording(path, tee);
  } else {
    info = live::replay_recording(path, session);
    std::cout << path << ": " << info.samples << " samples, " << info.records << " records, "
              << info.file_bytes << " bytes\n";
    std::cout << session.read(
        [](const live::Store& s, const live::AlertEngine& al) { return live_summary(s, al); });
  }
  if (info.truncated) std::cerr << path << ": " << info.note << "\n";
  return 0;
}

}  // namespace

OOMSCOPE_COMMAND(Command{"replay", "open a live recording: per-rank summary or JSON lines", kUsage,
                         run_replay});

}  // namespace oomscope::cli
