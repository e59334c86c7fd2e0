#pragma once
// The report as JSON lives in the core (core/analysis/report/report_json.h), so the GUI's export writes the same
// document; the CLI uses it under its old names.

#include "core/analysis/report/report_json.h"

namespace oomscope::cli {

using analysis::kReportJsonVersion;
using analysis::report_to_json;

}  // namespace oomscope::cli
