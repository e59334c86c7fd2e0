#include "core/analysis/report/consistency_checks.h"

#include <map>
#include <optional>
#include <unordered_map>

#include "core/util/bytes.h"

namespace oomscope::analysis {

using capture::MemoryEvent;
using capture::MemoryEventKind;

namespace {

std::string exact(std::int64_t n) { return format_bytes_exact(n); }

// Bytes in use after each event should be the figure before it plus (allocation) or minus (free) the
// event's chunk. Counts the events where the allocator's own figure says otherwise.
struct InUseCheck {
  std::int64_t events = 0, mismatches = 0;
  std::int64_t first_time_ps = 0, first_reported = 0, first_expected = 0;
  bool started = false;
  std::int64_t previous = 0;
};

}  // namespace

std::vector<std::string> consistency_problems(const capture::Capture& c, const RuntimeAnalysis& rt) {
  std::vector<std::string> out;
  std::vector<InUseCheck> checks(c.allocators().size());
  std::vector<std::unordered_map<std::uint64_t, std::int64_t>> live(c.allocators().size());  // addr -> chunk
  for (const MemoryEvent& e : c.memory_events()) {
    if (e.allocator >= checks.size()) continue;
    InUseCheck& k = checks[e.allocator];
    ++k.events;
    // A free's chunk: its own allocation_bytes, or (the TPU runtime writes 0 there) the chunk allocated at
    // that address in the capture; unknown for a chunk allocated before it, which is then not checked.
    std::optional<std::int64_t> delta;
    auto& open = live[e.allocator];
    if (e.kind == MemoryEventKind::Allocation) {
      delta = e.allocation_bytes;
      open[e.addr] = e.allocation_bytes;
    } else {
      const auto it = open.find(e.addr);
      if (e.allocation_bytes > 0)
        delta = -e.allocation_bytes;
      else if (it != open.end())
        delta = -it->second;
      if (it != open.end()) open.erase(it);
    }
    if (k.started && delta && k.previous + *delta != e.bytes_in_use) {
      if (k.mismatches++ == 0) {
        k.first_time_ps = e.time_ps;
        k.first_reported = e.bytes_in_use;
        k.first_expected = k.previous + *delta;
      }
    }
    k.started = true;
    k.previous = e.bytes_in_use;
  }
  for (std::size_t i = 0; i < checks.size() && i < c.allocators().size(); ++i) {
    const InUseCheck& k = checks[i];
    if (k.mismatches == 0) continue;
    out.push_back(
        c.allocators()[i].name + ": at " + exact(k.mismatches) + " of its " + exact(k.events) +
        " events the bytes in use it reports disagree with the chunk just allocated or freed (first at " +
        exact(k.first_time_ps) + " ps: " + exact(k.first_reported) + " reported, " + exact(k.first_expected) +
        " from the events); its in-use figures are as read, not confirmed");
  }
  for (const AllocatorRuntime& a : rt.allocators) {
    if (a.bytes_in_use_at_start < 0)
      out.push_back(a.name + ": its first event implies " + exact(a.bytes_in_use_at_start) +
                    " bytes in use before the capture, which cannot be; its in-use figures are inconsistent");
    else if (a.unmatched_free_bytes > a.bytes_in_use_at_start)
      out.push_back(a.name + ": " + exact(a.unmatched_frees) +
                    " frees of chunks never allocated in the capture release " +
                    exact(a.unmatched_free_bytes) + " bytes, more than the " +
                    exact(a.bytes_in_use_at_start) +
                    " in use when it started; frees without allocations, so its live and leak figures are "
                    "not reliable");
  }
  // Executions: a module's host executions against its runs on each device (TPU "XLA Modules" lines).
  if (rt.module && rt.module->program_id) {
    std::map<std::uint32_t, std::int64_t> runs_per_plane;
    for (const capture::ExecutionSpan& s : c.executions())
      if (s.kind == capture::ExecutionKind::DeviceModule && s.program_id == rt.module->program_id)
        ++runs_per_plane[s.plane];
    std::int64_t host = 0;
    for (const capture::ExecutionSpan& s : c.executions())
      if (s.kind != capture::ExecutionKind::DeviceModule && s.program_id == rt.module->program_id) ++host;
    for (const auto& [plane, runs] : runs_per_plane) {
      if (host == 0 || runs == host || plane >= c.planes().size()) continue;
      out.push_back(rt.module->module + ": " + exact(host) + " host executions carry its program id, but " +
                    c.planes()[plane].name + " ran it " + exact(runs) +
                    " times; the execution count is not confirmed by the device");
      break;
    }
  }
  return out;
}

}  // namespace oomscope::analysis
