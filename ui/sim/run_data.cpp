#include "ui/sim/run_data.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include "core/sim/simulator.h"
#include "core/sim/trace_io.h"
#include "core/util/error.h"
#include "ui/sim/step_counters.h"

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

RunPtr runFromLog(sim::EventLog log, std::optional<sim::GradMode> grad, std::optional<sim::Totals> finalTotals,
                  std::stop_token stop) {
  QElapsedTimer clock;
  clock.start();
  auto run = std::make_shared<RunData>();
  run->gradMode = grad;
  run->fromTrace = true;
  run->log = std::move(log);
  run->stepEnd = stepBoundaries(run->log);
  if (run->steps() > kMaxSteps) {
    // Keep the first kMaxSteps steps; events after them are cut so that tree and table agree.
    run->truncated = true;
    run->stepEnd.resize(std::size_t(kMaxSteps) + 1);
    run->log.events.resize(run->stepEnd.back());
    finalTotals.reset();
  }
  run->stepTotals = deriveStepTotals(run->log, run->stepEnd, grad, nullptr);
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
  sim::Trace trace = sim::read_trace_file(path.toStdString());
  if (stop.stop_requested()) throw Cancelled(path.toStdString());
  const double readSeconds = double(clock.nsecsElapsed()) * 1e-9;

  // A simulator trace carries its config: then the policy and time model are known exactly.
  std::optional<sim::SimConfig> config;
  if (trace.header.source == "simulator") {
    try {
      config = sim::config_from_json(trace.header.config, path.toStdString());
    } catch (const Error&) {
      config.reset();  // a free-form or older header: show the events without the model counters
    }
  }
  std::optional<sim::GradMode> grad;
  if (config) grad = config->policy.grad;
  else if (auto g = trace.header.config.find("grad"); g != trace.header.config.end() && g->is_string())
    grad = sim::parse_grad_mode(g->get<std::string>());

  progress.report(0.5, "laying out the tree");
  auto base = runFromLog(std::move(trace.log), grad, trace.totals, stop);
  auto run = std::const_pointer_cast<RunData>(base);
  if (config && !run->truncated) {
    // Re-derive with the time model so the overhead is known at every step, keeping the file's final line.
    run->stepTotals = deriveStepTotals(run->log, run->stepEnd, grad, &config->time);
    if (trace.totals && run->steps() > 0) run->stepTotals.back() = *trace.totals;
    run->modelCountersKnownEachStep = true;
  }
  run->config = config;
  run->baselines = trace.baselines;
  run->title = QFileInfo(path).fileName();
  run->source = QStringLiteral("trace from %1: %2").arg(QString::fromStdString(trace.header.source), path);
  run->computeSeconds += readSeconds;
  progress.report(1.0, "done");
  return run;
}

}  // namespace oomscope::ui
