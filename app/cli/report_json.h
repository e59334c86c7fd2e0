#pragma once
// The report as JSON (documented in docs/report-json.md). Every byte figure is an integer number of bytes;
// program ids are strings (they can exceed 2^53, the largest integer many JSON readers keep exactly).

#include <nlohmann/json.hpp>
#include <span>

#include "core/analysis/report.h"

namespace oomscope::cli {

inline constexpr int kReportJsonVersion = 2;

nlohmann::json report_to_json(std::span<const analysis::HostReport> reports,
                              const analysis::ReportOptions& options);

}  // namespace oomscope::cli
