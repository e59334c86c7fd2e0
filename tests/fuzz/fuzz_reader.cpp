// libFuzzer target for the capture reader: any bytes must give a Capture or an oomscope::Error, never a
// crash, a hang or another exception. The input goes through the in-memory entry point (no temp files),
// and what a reader of the model would touch (every event's stats, the modules) is touched.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/capture/reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  oomscope::NullProgress none;
  std::shared_ptr<const oomscope::capture::Capture> cap;
  try {
    cap = oomscope::capture::read_capture_from_memory(std::string(reinterpret_cast<const char*>(data), size),
                                                      "<fuzz input>", none);
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();  // every error must say something
    return 0;
  }
  std::size_t touched = 0;
  for (const auto& plane : cap->planes())
    for (const auto& line : plane.lines)
      for (const auto& event : line.events) {
        for (const auto& stat : cap->event_stats(plane, event))
          touched += stat.name.size() + stat.value.as_string().size();
        (void)plane.event_name(event.metadata_id());
      }
  for (const auto& m : cap->modules())
    touched += m.name.size() + static_cast<std::size_t>(m.totals.allocation_count);
  for (const auto& e : cap->memory_events())
    if (e.allocator >= cap->allocators().size() || e.tf_op >= cap->strings().size()) __builtin_trap();
  for (const auto& d : cap->device_program_events())
    if (d.module_name >= cap->strings().size() || d.plane >= cap->planes().size()) __builtin_trap();
  for (const auto& s : cap->executions())
    if (s.plane >= cap->planes().size() || s.line >= cap->planes()[s.plane].lines.size()) __builtin_trap();
  // Keeps the touching from being optimised away.
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
