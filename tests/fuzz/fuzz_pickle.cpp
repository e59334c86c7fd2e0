// libFuzzer target for the safe pickle reader and the snapshot model: any bytes must give a Snapshot or an
// oomscope::Error, never a crash, a hang, another exception or a callable run. What a reader of the model
// touches (the timeline, the allocator state, the report) is computed too.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/snapshot/snapshot_analysis.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  oomscope::NullProgress none;
  std::shared_ptr<const oomscope::snapshot::Snapshot> snap;
  try {
    snap = oomscope::snapshot::read_snapshot_from_memory(
        std::string(reinterpret_cast<const char*>(data), size), "<fuzz input>", none);
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();  // every error must say something
    return 0;
  }
  for (const auto& b : snap->blocks)
    if (b.segment >= snap->segments.size() || b.frames >= snap->frame_lists.size()) __builtin_trap();
  for (const auto& list : snap->frame_lists)
    for (std::uint32_t f : list)
      if (f >= snap->frames.size()) __builtin_trap();
  const auto report = oomscope::snapshot::analyse_snapshot(*snap, 10);
  std::size_t touched = report.diagnosis.size();
  for (const auto& d : report.devices) touched += d.at_peak.size() + d.state.segments.size();
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
