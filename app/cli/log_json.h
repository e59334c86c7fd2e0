#pragma once
// A log's report as JSON (docs/report-json.md, "Logs"): every message with its kind, figures in bytes,
// buffers, derived figures, diagnosis and the advice on what to run next.

#include <nlohmann/json_fwd.hpp>

#include "core/log/log_diagnosis.h"

namespace oomscope::cli {

nlohmann::json log_json(const log::LogFile& log, const log::LogDiagnosis& d);

}  // namespace oomscope::cli
