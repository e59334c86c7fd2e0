#pragma once
// Shared by the simulator tests: small configs with hand-picked scene sizes and a unit memory model
// (1 byte per point, nothing fixed) so that "fits" can be read straight off the point counts.

#include <sstream>
#include <string>
#include <vector>

#include "core/sim/simulator.h"
#include "core/sim/trace_writer.h"

namespace oomscope::sim::testing {

inline SimConfig sized_config(std::vector<std::int64_t> sizes, std::int64_t batch,
                              std::int64_t budget_points) {
  SimConfig c;
  c.scenes.dist = SizeDist::File;
  c.scenes.sizes_file = "<test sizes>";
  c.scenes.count = static_cast<std::int64_t>(sizes.size());
  c.scenes.sizes = std::move(sizes);
  c.batch = batch;
  c.memory.bytes_per_point = 1;
  c.memory.fixed_bytes = 0;
  c.memory.budget = budget_points;
  c.memory.fragmentation_penalty = 0;
  c.memory.empty_cache_relief_permille = 0;  // a penalty, when a test sets one, stays until a success
  return c;
}

inline std::string trace_text(const Simulator& sim) {
  std::ostringstream out;
  write_trace(out, sim.config(), sim.log(), sim.totals(), sim.baselines());
  return out.str();
}

// One event as its trace line: a complete field-by-field comparison in one string.
inline std::string event_line(const EventLog& log, const Event& e) {
  std::ostringstream out;
  TraceWriter w(out, TraceHeader{});
  w.write_event(e, log);
  const std::string s = out.str();
  return s.substr(s.find('\n') + 1);
}

inline std::vector<std::int64_t> scenes_of(const EventLog& log, const Event& e) {
  const auto s = log.scenes(e);
  return {s.begin(), s.end()};
}

}  // namespace oomscope::sim::testing
