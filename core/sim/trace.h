#pragma once
// The event trace file (JSON lines, docs/sim-trace-format.md): a header line, one line per event, a totals
// line. Written by the simulator and by the real trainer (trace_writer.h); read by the GUI and by tests
// (trace_reader.h); the config and totals as JSON in trace_json.h.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/sim/config.h"
#include "core/sim/event.h"

namespace oomscope::sim {

inline constexpr const char* kTraceFormat = "oomscope-split-trace";
inline constexpr int kTraceVersion = 1;

struct TraceHeader {
  std::string format = kTraceFormat;
  int version = kTraceVersion;
  std::string source = "simulator";                  // "simulator" | "libtorch" | any producer name
  nlohmann::json config = nlohmann::json::object();  // simulator: config_to_json(); others: free-form
  std::optional<std::uint64_t> seed;
};

struct Trace {
  TraceHeader header;
  EventLog log;
  std::optional<Totals> totals;  // absent when the producer stopped before writing it
  std::optional<Baselines> baselines;
  // Events in the file past the reader's max_events: checked line by line but not kept.
  std::int64_t events_not_kept = 0;
};

}  // namespace oomscope::sim
