#include "ui/sim/run_data.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include "core/sim/simulator.h"
#include "core/sim/step_totals.h"
#include "core/sim/trace_json.h"
#include "core/sim/trace_reader.h"
#include "core/util/error.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

std::int64_t RunData::eventsAfter(std::int64_t s) const {
  if (s <= 0 || stepEnd.empty()) return 0;
  return std::int64_t(stepEnd[std::size_t(std::min(s, steps()))]);
}

RunPtr simulateRun(const sim::SimConfig& config, const QString& title, ProgressSink& progress,
                   std::stop_token stop) {
  QElapsedTimer clock;
  clock.start();
  progress.report(0.0, "simulating");
  sim::Simulator simulator(config);
  auto run = std::make_shared<RunData>();
  run->title = title;
  run->source = QStringLiteral("simulator, seed %1").arg(config.seed);
  run->config = simulator.config();
  run->gradMode = config.policy.grad;
  run->stepEnd.push_back(0);
  run->stepTotals.emplace_back();
  const double batches = double(std::max<std::int64_t>(simulator.batch_count(), 1));
  while (simulator.step()) {
    run->stepEnd.push_back(std::uint32_t(simulator.log().events.size()));
    run->stepTotals.push_back(simulator.totals());
    const auto steps = run->steps();
    if ((steps & 1023) == 0) {
      if (stop.stop_requested()) throw Cancelled();
      progress.report(0.9 * double(simulator.totals().batches) / batches, "simulating");
    }
    if (steps >= kMaxSteps) {
      run->truncated = true;
      break;
    }
  }
  run->log = simulator.log();
  if (run->truncated && !simulator.finished()) {
    // Keep nothing more; run on for the whole run's counters (stop is checked every 4096 steps).
    simulator.keep_events(std::int64_t(simulator.log().events.size()));
    progress.report(0.5, "running on past what the page keeps");
    simulator.run_to_end(stop);
  }
  if (run->truncated) run->wholeRun = simulator.totals();
  run->wholeRunEvents = simulator.events_made();
  run->batchCount = simulator.batch_count();
  run->baselines = simulator.baselines();
  run->computeSeconds = double(clock.nsecsElapsed()) * 1e-9;

  clock.restart();
  progress.report(0.9, "laying out the tree");
  run->layout = layoutTree(run->log, stop);
  run->layoutSeconds = double(clock.nsecsElapsed()) * 1e-9;
  progress.report(1.0, "done");
  return run;
}

RunPtr runFromLog(sim::EventLog log, std::optional<sim::GradMode> grad,
                  std::optional<sim::Totals> finalTotals, std::stop_token stop) {
  QElapsedTimer clock;
  clock.start();
  auto run = std::make_shared<RunData>();
  run->gradMode = grad;
  run->fromTrace = true;
  run->log = std::move(log);
  run->stepEnd = sim::step_boundaries(run->log);
  if (run->steps() > kMaxSteps) {
    // Keep the first kMaxSteps steps; events after them are cut so that tree and table agree.
    run->truncated = true;
    run->stepEnd.resize(std::size_t(kMaxSteps) + 1);
    run->log.events.resize(run->stepEnd.back());
    finalTotals.reset();
  }
  run->stepTotals = sim::step_totals(run->log, run->stepEnd, grad, nullptr);
  run->batchCount = run->stepTotals.back().batches;
  run->modelCountersKnownEachStep = false;
  if (finalTotals && run->steps() > 0) {
    run->stepTotals.back() = *finalTotals;
    run->hasFinalTotals = true;
  }
  run->computeSeconds = double(clock.nsecsElapsed()) * 1e-9;
  clock.restart();
  run->layout = layoutTree(run->log, stop);
  run->layoutSeconds = double(clock.nsecsElapsed()) * 1e-9;
  return run;
}

RunPtr loadTraceRun(const QString& path, ProgressSink& progress, std::stop_token stop) {
  progress.report(0.0, "reading trace");
  QElapsedTimer clock;
  clock.start();
  // At most as many events as the page keeps for a simulation; the rest of the file is checked, not kept.
  sim::Trace trace = sim::read_trace_file(path.toStdString(), 4 * kMaxSteps);
  if (stop.stop_requested()) throw Cancelled(path.toStdString());
  const double readSeconds = double(clock.nsecsElapsed()) * 1e-9;

  // A simulator trace carries its config: then the policy and time model are known exactly.
  // A real trainer's trace carries the config it ran (docs/sim-trace-format.md): its prediction can be
  // simulated. Its counters are not re-derived with the time model: its times are measured.
  std::optional<sim::SimConfig> config;
  std::string configError;
  try {
    config = sim::config_from_json(trace.header.config, path.toStdString());
  } catch (const Error& e) {
    configError = e.message();  // a free-form or older header: show the events without the model counters
  }
  const bool real = trace.header.source != "simulator";
  const std::int64_t eventsInFile = std::int64_t(trace.log.events.size()) + trace.events_not_kept;
  std::optional<sim::Totals> fileTotals = trace.totals;
  if (trace.events_not_kept > 0) trace.totals.reset();  // not the counters of the kept part
  std::optional<sim::GradMode> grad;
  if (config)
    grad = config->policy.grad;
  else if (auto g = trace.header.config.find("grad"); g != trace.header.config.end() && g->is_string())
    grad = sim::parse_grad_mode(g->get<std::string>());

  progress.report(0.5, "laying out the tree");
  auto base = runFromLog(std::move(trace.log), grad, trace.totals, stop);
  auto run = std::const_pointer_cast<RunData>(base);
  if (trace.events_not_kept > 0) run->truncated = true;
  if (run->truncated) run->wholeRun = fileTotals;
  run->wholeRunEvents = eventsInFile;
  run->realRun = real;
  run->configError = safeMultiline(configError);
  if (config && !real && !run->truncated) {
    // Re-derive with the time model so the overhead is known at every step, keeping the file's final line.
    run->stepTotals = sim::step_totals(run->log, run->stepEnd, grad, &config->time);
    if (trace.totals && run->steps() > 0) run->stepTotals.back() = *trace.totals;
    run->modelCountersKnownEachStep = true;
  }
  run->config = config;
  run->baselines = trace.baselines;
  run->title = QFileInfo(path).fileName();
  run->source = QStringLiteral("trace from %1: %2").arg(safeText(trace.header.source), path);
  run->computeSeconds += readSeconds;
  progress.report(1.0, "done");
  return run;
}

}  // namespace oomscope::ui
