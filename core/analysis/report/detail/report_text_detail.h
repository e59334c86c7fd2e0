#pragma once
// Helpers shared by the text report's writers (report_text.cpp, report_text_peak.cpp).

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>

#include "core/analysis/report/report.h"
#include "core/util/bytes.h"

namespace oomscope::analysis::detail {

inline std::string b(std::int64_t bytes) { return format_bytes(bytes); }

inline std::string secs(std::int64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(ps) / 1e12);
  return buf;
}

// "1 allocation", "3 allocations".
inline std::string allocations(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " allocation" : " allocations");
}

// XProf's unpadded sizes of every buffer live at the plan's peak (PlanBuffer::unpadded_bytes), parameters
// and outputs included; -1 when a buffer's shape is unknown.
inline std::int64_t unpadded_live_bytes(const PlanAnalysis& p) {
  std::int64_t sum = 0;
  for (const PlanBuffer& buf : p.live_at_peak) {
    if (buf.unpadded_bytes < 0) return -1;
    sum += buf.unpadded_bytes;
  }
  return sum;
}

// The runtime peak explained: its execution and the reconciliation, what was live by producer, the modules'
// shares, requested -> chunk, and the allocations the allocator rounded up by 1 MiB or more.
void write_runtime_peak(std::ostream& o, const HostReport& r, std::size_t top);

}  // namespace oomscope::analysis::detail
