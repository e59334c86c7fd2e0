// libFuzzer target for the simulator's trace reader (core/sim/trace_reader.cpp, docs/sim-trace-format.md):
// any bytes must give a Trace or an oomscope::Error that says something, never a crash, a hang or another
// exception. What the GUI does with a trace it opened is done too: every event's scene ids are looked up,
// the totals and baselines are written back as JSON, and the config in the header is read as a SimConfig.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/sim/trace_json.h"
#include "core/sim/trace_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace oomscope::sim;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  Trace trace;
  try {
    trace = read_trace(in, "<fuzz input>", 100000);
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();  // every error must say something
    return 0;
  }
  std::size_t touched = 0;
  for (const Event& e : trace.log.events) {
    // The reader promises that each event's scene ids lie in the pool.
    if (std::uint64_t{e.scenes_offset} + e.scenes_count > trace.log.scene_ids.size()) __builtin_trap();
    for (const std::uint32_t id : trace.log.scenes(e)) touched += id;
  }
  if (trace.totals) touched += totals_to_json(*trace.totals).dump().size();
  if (trace.baselines) touched += baselines_to_json(*trace.baselines).dump().size();
  try {
    const SimConfig config = config_from_json(trace.header.config, "<fuzz input>");
    touched += static_cast<std::size_t>(config.batch);
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();
  }
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
