#pragma once
// Reads the event trace file (trace.h) with errors that name the file and line (trace_reader.cpp).

#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/sim/trace.h"

namespace oomscope::sim {

// Reads a trace. Errors (oomscope::Error) name the file and the 1-based line: not JSON, wrong format or
// version, a missing or mistyped field, an unknown outcome, a parent that is not an earlier event, ids out
// of order, anything after the totals line.
// With max_events >= 0 at most that many events are kept (the rest are still read and checked, and
// counted in events_not_kept), so that memory stays bounded whatever the file's size.
Trace read_trace_file(const std::string& path, std::int64_t max_events = -1);
Trace read_trace(std::istream& in, const std::string& name, std::int64_t max_events = -1);

}  // namespace oomscope::sim
