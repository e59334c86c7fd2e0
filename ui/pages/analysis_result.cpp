#include "ui/pages/analysis_result.h"

#include <chrono>
#include <sstream>

#include "core/analysis/report_text.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

std::shared_ptr<const AnalysisResult> buildAnalysis(
    const AnalysisRequest& request, std::stop_token stop,
    std::optional<std::pair<std::optional<std::size_t>, analysis::ModuleChoice>> knownDefault) {
  const auto started = std::chrono::steady_clock::now();
  auto result = std::make_shared<AnalysisResult>();
  result->request = request;
  const capture::Capture& capture = *request.capture;

  analysis::ReportOptions options;
  options.top = kReportTop;
  options.capacity = request.capacity;
  if (!request.module.trimmed().isEmpty()) options.module = request.module.trimmed().toStdString();
  auto report = std::make_shared<analysis::HostReport>(analysis::build_host_report(capture, options, stop));

  if (knownDefault) {
    result->defaultModule = knownDefault->first;
    result->defaultChoice = knownDefault->second;
  } else if (!options.module) {
    result->defaultModule = report->module_index;
    result->defaultChoice = report->runtime.choice;
  } else {
    // The module selector marks the default even when the first request already names another one.
    analysis::ReportOptions plain;
    plain.top = 1;
    plain.series_points = 4;
    const analysis::HostReport def = analysis::build_host_report(capture, plain, stop);
    result->defaultModule = def.module_index;
    result->defaultChoice = def.runtime.choice;
  }

  std::ostringstream text;
  analysis::write_report_text(text, *report, options.top);
  result->text = safeMultiline(text.str());  // as the CLI prints it: terminal_safe
  result->verdict = reportVerdict(*report);
  result->plan = planCurveSeries(*report);
  result->timeline = timelineSeries(*report, capture);
  result->report = std::move(report);
  result->buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace oomscope::ui
