#pragma once
// Writes the event trace file (trace.h), streamed or whole (trace_writer.cpp).

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

#include "core/sim/trace.h"

namespace oomscope::sim {

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

}  // namespace oomscope::sim
