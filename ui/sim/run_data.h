#pragma once
// One split-and-retry run as the Simulator page shows it: every event, the counters after every step and
// the tree layout, computed once on a worker thread and then shared read-only with the UI thread.
//
// Stepping in the GUI only moves a cursor over this immutable record (O(1) per step, exact both ways), so
// the core simulator runs once per configuration instead of once per click, and a trace file (simulated or
// from a real LibTorch run) is shown by exactly the same code as a live simulation.

#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "core/sim/config.h"
#include "core/sim/event.h"
#include "core/util/progress.h"
#include "ui/sim/tree_layout.h"

namespace oomscope::ui {

struct RunData {
  QString title;   // "original", "corrected", "custom" or the trace's file name
  QString source;  // one line: where the run came from
  bool fromTrace = false;
  std::optional<sim::SimConfig> config;  // absent for a trace whose header is not a simulator config
  std::optional<sim::GradMode>
      gradMode;  // needed to derive "gradient reached the step"; unknown for some traces

  sim::EventLog log;
  // stepEnd[s]: events logged after s steps (stepEnd[0] == 0); the attempt of step s is event stepEnd[s-1].
  std::vector<std::uint32_t> stepEnd;
  // Counters after s steps; stepTotals[0] is all zero.
  std::vector<sim::Totals> stepTotals;
  // Counters that cannot be derived from events alone (overhead vs an OOM-free run) are only known where
  // the simulator computed them, or at the end of a trace that has a totals line.
  bool modelCountersKnownEachStep = true;
  std::optional<sim::Baselines> baselines;

  std::int64_t batchCount = 0;  // batches the run was to have (simulator), or that the trace started
  bool truncated = false;       // more than kMaxSteps: only the first kMaxSteps steps are kept and shown
  // A truncated simulation still runs to its end (without keeping events): the whole run's counters.
  // A truncated trace: its totals line, when it has one.
  std::optional<sim::Totals> wholeRun;
  std::int64_t wholeRunEvents = 0;  // events of the whole run (or file), kept or not
  bool realRun = false;             // a trace whose source is not the simulator (a real trainer)
  QString configError;  // a trace whose header config is not a simulator config: why (no prediction)
  TreeLayout layout;
  double computeSeconds = 0;  // simulation (or trace read) on the worker
  double layoutSeconds = 0;

  std::int64_t steps() const { return std::int64_t(stepEnd.size()) - 1; }
  // The event attempted at step s (1-based), or -1 for s == 0.
  std::int64_t attemptOfStep(std::int64_t s) const {
    return s <= 0 || s > steps() ? -1 : std::int64_t(stepEnd[std::size_t(s - 1)]);
  }
  std::int64_t eventsAfter(std::int64_t s) const;
  bool modelCountersKnownAt(std::int64_t s) const {
    return modelCountersKnownEachStep || (s == steps() && hasFinalTotals);
  }
  bool hasFinalTotals = false;  // trace: the totals line was present and is used for the last step
};

using RunPtr = std::shared_ptr<const RunData>;

// Beyond this the page stops keeping events and per-step counters (about 400 bytes a step): what it draws.
// The run itself goes on to its end, streamed, so that its final counters are known.
inline constexpr std::int64_t kMaxSteps = 400'000;

// Runs the simulator to the end, recording events and counters for the first kMaxSteps steps, then lays
// out the tree.
// Throws oomscope::Error for a bad config or sizes file and oomscope::Cancelled when stop is requested.
RunPtr simulateRun(const sim::SimConfig& config, const QString& title, ProgressSink& progress,
                   std::stop_token stop);

// Reads a JSONL trace (oomscope-cli simulate --trace, or a real trainer) and derives per-step counters.
// Throws oomscope::Error naming the file and line for bad input.
RunPtr loadTraceRun(const QString& path, ProgressSink& progress, std::stop_token stop);

// Builds a run from an event log already in memory (traces and tests); counters are derived from the
// events; finalTotals, when given, replaces the derived counters at the last step.
RunPtr runFromLog(sim::EventLog log, std::optional<sim::GradMode> grad,
                  std::optional<sim::Totals> finalTotals, std::stop_token stop = {});

}  // namespace oomscope::ui
