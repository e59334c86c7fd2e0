#pragma once
// The report as JSON (documented in docs/report-json.md). Every byte figure is an integer number of bytes;
// program ids are strings (they can exceed 2^53, the largest integer many JSON readers keep exactly).

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

#include "core/analysis/report/report.h"

namespace oomscope::analysis {

inline constexpr int kReportJsonVersion = 3;

nlohmann::json report_to_json(std::span<const HostReport> reports, const ReportOptions& options);

// A file of the run that could not be read: listed under "failed".
struct ReportFailure {
  std::string file;
  std::string message;
};

// The whole JSON document `oomscope-cli report --json` writes: the reports, the files that failed, indented
// by two spaces, invalid UTF-8 in names replaced by U+FFFD, ending with a newline.
std::string report_json_text(std::span<const HostReport> reports, const ReportOptions& options,
                             std::span<const ReportFailure> failures);

}  // namespace oomscope::analysis
