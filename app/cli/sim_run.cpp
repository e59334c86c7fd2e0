// One simulator run as `oomscope-cli simulate` does it (sim_run.h).

#include "app/cli/sim_run.h"

#include <fstream>
#include <optional>
#include <sstream>

#include "app/cli/command.h"
#include "app/cli/sim_report.h"
#include "core/sim/trace_json.h"
#include "core/sim/trace_writer.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

using namespace oomscope::sim;

// The exit code of a run that a real trainer would not survive (a bug under --catch oom-only).
constexpr int kExitCrash = 4;
// A run in which no attempt succeeded, under --catch oom-only (elsewhere a warning only).
constexpr int kExitDroppedAll = 6;

}  // namespace

SimOutcome run_simulation(const SimOptions& o, const std::stop_token& stop) {
  SimOutcome r;
  const auto warn = [&r](const std::string& line) { r.notes.push_back("warning: " + line); };
  try {
    validate(o.config);
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  Simulator sim(o.config);  // reads a sizes file: oomscope::Error names the file and line
  // Nothing is kept: events stream to the trace as they happen and the counters are running sums, so
  // memory stays bounded by one batch's queue whatever the run's length.
  sim.keep_events(0);
  std::ofstream trace_out;
  std::optional<TraceWriter> writer;
  if (!o.trace.empty()) {
    trace_out.open(o.trace, std::ios::binary | std::ios::trunc);
    if (!trace_out) throw Error(ErrorKind::Io, o.trace, "cannot open the trace file for writing");
    TraceHeader header;
    header.config = config_to_json(sim.config());
    header.seed = sim.config().seed;
    writer.emplace(trace_out, header);
    sim.set_event_sink(
        [&](const Event& e, std::span<const std::uint32_t> scenes) { writer->write_event(e, scenes); });
  }
  sim.run_to_end(stop);
  if (writer) {
    writer->write_totals(sim.totals(), &sim.baselines());
    trace_out.flush();
    if (!trace_out) throw Error(ErrorKind::Io, o.trace, "could not write the whole trace (disk full?)");
  }
  std::ostringstream text;
  print_sim_report(text, sim);
  r.out = Rendered{text.str(), sim_report_json(sim)};

  const auto& c = sim.config();
  const Totals& t = sim.totals();
  if (sim.crashed() && t.floor_raised) {
    r.notes.push_back("a fragment of scene " + std::to_string(t.crash_scene) + " reached the floor of " +
                      std::to_string(c.policy.floor) + " points and still did not fit (trace event " +
                      std::to_string(t.crash_event) +
                      "); with --on-floor raise the trainer stops here instead of dropping it");
    r.exit_code = kExitCrash;
    return r;
  }
  if (sim.crashed()) {
    r.notes.push_back("scene " + std::to_string(c.fault.scene) + " raised " +
                      (c.fault.kind == BugKind::ShapeMismatch ? "a shape mismatch" : "a NaN loss") +
                      " (trace event " + std::to_string(t.crash_event) + "); with --catch " +
                      std::string(to_string(c.policy.catch_mode)) +
                      " the trainer crashes here (with --catch everything the same bug would be split down "
                      "to the floor and dropped without a trace)");
    r.exit_code = kExitCrash;
    return r;
  }
  if (t.points > 0 && t.points_trained == 0) {
    warn("no attempt succeeded: every one of the " + std::to_string(t.points) +
         " points was dropped. The budget cannot hold the fixed bytes per attempt" +
         (c.memory.fragmentation_penalty > 0 ? " plus what fragmentation leaves unusable" : std::string()) +
         "; raise --budget" + (c.memory.empty_cache_relief_permille == 0 ? " or --empty-cache-relief" : ""));
    if (c.policy.catch_mode == CatchMode::OomOnly) r.exit_code = kExitDroppedAll;
  } else if (t.points_dropped > 0 && c.policy.on_floor != FloorAction::Drop) {
    warn(std::to_string(t.points_dropped) + " points were dropped: fragments kept at the floor still failed");
  }
  return r;
}

}  // namespace oomscope::cli
