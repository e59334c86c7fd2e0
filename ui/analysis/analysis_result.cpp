#include "ui/analysis/analysis_result.h"

#include <chrono>
#include <sstream>

#include "core/analysis/report/report_text.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

std::shared_ptr<const AnalysisResult> buildAnalysis(const AnalysisRequest& request,
                                                    const std::stop_token& stop) {
  const auto started = std::chrono::steady_clock::now();
  auto result = std::make_shared<AnalysisResult>();
  result->request = request;
  const capture::Capture& capture = *request.capture;

  analysis::ReportOptions options;
  options.top = kReportTop;
  options.capacity = request.capacity;
  options.time_window = request.timeWindow;
  options.plan_range = request.planRange;
  if (request.timeWindow) options.whole_capture = request.wholeCapture.get();
  if (request.module.programId)
    options.program_id = *request.module.programId;
  else if (!request.module.name.isEmpty())
    options.module = request.module.name.toStdString();
  // A time range inside one execution holds a part of the plan: the plan's figures follow it.
  const auto& whole = request.wholeTimeline;
  if (request.timeWindow && !request.planRange && whole) {
    result->planWindow =
        analysis::plan_positions_in(*whole, request.timeWindow->first, request.timeWindow->second);
    if (result->planWindow->cover == analysis::WindowCover::Part)
      options.plan_range = std::pair(result->planWindow->first, result->planWindow->last);
  }
  auto report = std::make_shared<analysis::HostReport>(analysis::build_host_report(capture, options, stop));
  if (result->planWindow && (!report->plan || report->plan->program_id != whole->program_id)) {
    // The range analyses another module than the timeline's (a name several modules share can pick
    // another under a range): its positions say nothing about this plan.
    result->planWindow.reset();
    if (options.plan_range) {
      options.plan_range.reset();
      report = std::make_shared<analysis::HostReport>(analysis::build_host_report(capture, options, stop));
    }
  }
  // The module selector marks the default even when the request names another module.
  result->defaultModule = report->runtime.default_module;
  result->defaultChoice = report->runtime.default_choice;

  std::ostringstream text;
  analysis::write_report_text(text, *report, options.top);
  result->text = safeMultiline(text.str());  // as the CLI prints it: terminal_safe
  result->verdict = reportVerdict(*report);
  result->plan = planCurveSeries(*report);
  result->timeline = timelineSeries(*report, capture);
  NullProgress progress;
  result->planTimeline = std::make_shared<const analysis::PlanTimeline>(
      analysis::map_plan_to_time(capture, *report, progress, stop));
  result->report = std::move(report);
  result->buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace oomscope::ui
