#pragma once
// Internal to runtime_executions*.cpp: the program each host execution launched, from the driver-API
// launches inside its span and the device events their correlation ids name.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/analysis/runtime/runtime_executions.h"

namespace oomscope::analysis {

// The device events that carry a correlation id, sorted by (correlation id, time order): the first entry
// of an id is its earliest device event, as a map filled in time order would keep.
struct CorrelationEntry {
  std::uint64_t correlation_id = 0;
  std::uint32_t order = 0;  // index in the time-sorted device events
  std::uint32_t plane = 0;
  std::uint64_t program_id = 0;
};

class CorrelationIndex {
 public:
  explicit CorrelationIndex(std::span<const capture::DeviceProgramEvent> device);
  // The entries of one id. hint: where the previous lookup landed (updated); launches taken in time order
  // mostly come in correlation order, so the search widens from there (a few steps near the hint instead of
  // a binary search over the whole index, whose every step is a cache miss on a big capture). Any hint
  // gives the same answer.
  std::span<const CorrelationEntry> of(std::uint64_t correlation_id, std::size_t& hint) const;
  // The plane of the device events of an id when they are all on one plane.
  static std::optional<std::uint32_t> single_plane(std::span<const CorrelationEntry> found);

 private:
  std::vector<CorrelationEntry> entries_;
};

// The program of each host execution from the kernels it launched: the driver-API launches inside its
// span carry program_id themselves (roctracer) or name, by correlation_id, a device event that does
// (CUPTI). A launch's device_id names its device plane; when the execution's own device is known (from the
// allocator it allocated from), only launches to that device count, and the device event must be on it.
// Launches of several programs that cannot be told apart leave the execution ambiguous: it keeps the
// name-and-order match and records the programs. A found id replaces the name-and-order guess and may name
// an execution whose module span is missing; such an execution did launch a kernel.
// Each launch is resolved once (its plane and program), so overlapping executions cost a scan of their
// launches, not a lookup per launch and execution.
void match_by_program_id(const ExecutionInput& in, std::vector<RuntimeExecution>& out);

}  // namespace oomscope::analysis
