#pragma once
// The event trace file (JSON lines, docs/sim-trace-format.md): a header line, one line per event, a totals
// line. Written by the simulator and by the real trainer; read by the GUI and by tests.

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
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

nlohmann::json config_to_json(const SimConfig& config);
// Throws oomscope::Error (InvalidArgument) naming `name` and the bad key.
SimConfig config_from_json(const nlohmann::json& j, const std::string& name);

nlohmann::json totals_to_json(const Totals& t);
nlohmann::json baselines_to_json(const Baselines& b);

// Streams a trace: header at construction, then events, then totals. Each line is flushed whole.
class TraceWriter {
 public:
  TraceWriter(std::ostream& out, const TraceHeader& header);
  void write_event(const Event& e, const EventLog& log) { write_event(e, log.scenes(e)); }
  void write_event(const Event& e, std::span<const std::uint32_t> scenes);
  void write_totals(const Totals& totals, const Baselines* baselines);

 private:
  std::ostream& out_;
};

// Header with config and seed, every event of the log, then the totals and baselines.
void write_trace(std::ostream& out, const SimConfig& config, const EventLog& log, const Totals& totals,
                 const Baselines& baselines);
void write_trace_file(const std::string& path, const SimConfig& config, const EventLog& log,
                      const Totals& totals, const Baselines& baselines);

// Reads a trace. Errors (oomscope::Error) name the file and the 1-based line: not JSON, wrong format or
// version, a missing or mistyped field, an unknown outcome, a parent that is not an earlier event, ids out
// of order, anything after the totals line.
// With max_events >= 0 at most that many events are kept (the rest are still read and checked, and
// counted in events_not_kept), so that memory stays bounded whatever the file's size.
Trace read_trace_file(const std::string& path, std::int64_t max_events = -1);
Trace read_trace(std::istream& in, const std::string& name, std::int64_t max_events = -1);

}  // namespace oomscope::sim
