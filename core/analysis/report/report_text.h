#pragma once
// The readable text form of the report (plan, runtime, diagnosis, limits), for people: binary units with
// three significant figures, every figure labelled [read], [measured] or [derived].

#include <ostream>
#include <span>

#include "core/analysis/report/report.h"

namespace oomscope::analysis {

void write_report_text(std::ostream& out, const HostReport& report, std::size_t top);
void write_report_text(std::ostream& out, std::span<const HostReport> reports, std::size_t top);

}  // namespace oomscope::analysis
