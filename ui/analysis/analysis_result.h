#pragma once
// Everything the analysis pages show for one (capture, module, pool) request, computed together on a worker
// thread by buildAnalysis(): the report, its CLI text, the verdict and the chart series. Immutable once
// built; pages share it through a shared_ptr.

#include <QString>
#include <memory>
#include <optional>
#include <stop_token>

#include "core/analysis/report/report.h"
#include "core/analysis/timeline/plan_timeline.h"
#include "core/analysis/timeline/plan_window.h"
#include "core/capture/capture.h"
#include "ui/charts/chart_series.h"

namespace oomscope::ui {

// Which module to analyse: by program id (the module selector, the Modules table), else by a name as the
// user typed it (name, "name(id)" or program id, resolved like the CLI's --module); neither = the
// capture's default module.
struct ModuleSelector {
  std::optional<quint64> programId;
  QString name;

  bool isDefault() const { return !programId && name.isEmpty(); }
};

struct AnalysisRequest {
  std::shared_ptr<const capture::Capture> capture;
  ModuleSelector module;
  std::optional<qint64> capacity;  // the user's pool size; nullopt = the allocator's capacity
  // A selection that re-scopes everything (ReportOptions::time_window / plan_range); nullopt = none.
  std::optional<std::pair<qint64, qint64>> timeWindow;  // ps of the capture's clock
  std::optional<std::pair<qint64, qint64>> planRange;   // trace positions of the analysed module's plan
  // The last report of the same capture without a time window: a time range borrows its executions of every
  // module (ReportOptions::whole_capture) instead of finding them again. Null: found again.
  std::shared_ptr<const analysis::HostReport> wholeCapture;
  // The plan placed on the clock in that report (its analysed module): a time range maps back to the plan
  // positions that ran in it (analysis::plan_positions_in), and a range inside one execution re-scopes the
  // plan's figures (its highest point, Buffers) to them. Null: the plan is not re-scoped by a time range.
  std::shared_ptr<const analysis::PlanTimeline> wholeTimeline;
};

struct AnalysisResult {
  AnalysisRequest request;
  std::shared_ptr<const analysis::HostReport> report;
  QString text;     // exactly what `oomscope-cli report` prints for the same module and pool
  QString verdict;  // reportVerdict(*report)
  // The module the capture analyses when none is chosen, and why (the core's chooser, whichever module the
  // request named).
  std::optional<std::size_t> defaultModule;
  analysis::ModuleChoice defaultChoice = analysis::ModuleChoice::None;
  PlanCurveSeries plan;
  TimelineSeries timeline;
  // The plan placed on the wall clock of each execution of the analysed module (never null once built).
  std::shared_ptr<const analysis::PlanTimeline> planTimeline;
  // A time range: which part of the plan ran in it (the report's plan is re-scoped to it when it is a
  // Part: plan->peak_range). nullopt: no time range, or no timeline of the same module to map it with.
  std::optional<analysis::PlanWindow> planWindow;
  double buildSeconds = 0;  // wall time on the worker
};

// The options `oomscope-cli report` uses by default (its --top), so the copied text matches the CLI's.
inline constexpr std::size_t kReportTop = 25;

// Throws what build_host_report throws (oomscope::Error for a module that matches nothing, Cancelled).
std::shared_ptr<const AnalysisResult> buildAnalysis(const AnalysisRequest& request,
                                                    const std::stop_token& stop);

}  // namespace oomscope::ui
