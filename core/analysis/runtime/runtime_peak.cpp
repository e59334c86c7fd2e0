#include "core/analysis/runtime/runtime_peak.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/runtime/runtime_allocators.h"
#include "core/analysis/runtime/runtime_analysis.h"

namespace oomscope::analysis {

using capture::MemoryEvent;
using capture::MemoryEventKind;

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// The event that made the peak: the allocator's first event at the peak's time with the peak's in-use figure.
std::optional<std::size_t> peak_event(const RuntimePeakInput& in) {
  const auto& mem = in.memory;
  auto it = std::lower_bound(mem.begin(), mem.end(), in.peak_time_ps,
                             [](const MemoryEvent& e, std::int64_t t) { return e.time_ps < t; });
  for (; it != mem.end() && it->time_ps == in.peak_time_ps; ++it)
    if (it->allocator == in.allocator && it->bytes_in_use == in.peak_bytes)
      return std::size_t(it - mem.begin());
  return std::nullopt;
}

// The execution whose host span holds time t: one on the peak event's own thread first, else one that
// allocates from the same allocator.
std::optional<RuntimeExecution> holding_execution(const RuntimePeakInput& in, const MemoryEvent& at) {
  const RuntimeExecution* same_allocator = nullptr;
  for (const RuntimeExecution& e : in.executions) {
    if (e.start_ps > at.time_ps || e.end_ps < at.time_ps) continue;
    if (e.plane == in.host_plane && e.line == at.line) return e;
    if (!same_allocator && e.allocator == in.allocator) same_allocator = &e;
  }
  if (same_allocator) return *same_allocator;
  return std::nullopt;
}

}  // namespace

std::optional<RuntimePeak> explain_runtime_peak(const RuntimePeakInput& in) {
  const std::optional<std::size_t> peak_index = peak_event(in);
  if (!peak_index || !in.host) return std::nullopt;
  const auto& mem = in.memory;
  const MemoryEvent& at = mem[*peak_index];
  RuntimePeak out;
  out.allocator = in.allocator;
  out.peak_bytes = at.bytes_in_use;
  out.time_ps = at.time_ps;
  out.fragmentation_at_peak = at.fragmentation;
  out.bytes_reserved_at_peak = at.bytes_reserved;

  std::unordered_map<std::uint64_t, std::size_t> open;  // addr -> allocation index, up to the peak
  for (std::size_t i = 0; i < mem.size(); ++i) {
    const MemoryEvent& e = mem[i];
    if (e.allocator != in.allocator) continue;
    if (e.time_ps >= in.count_from_ps && e.fragmentation > out.largest_fragmentation) {
      out.largest_fragmentation = e.fragmentation;
      out.largest_fragmentation_time_ps = e.time_ps;
    }
    if (e.kind == MemoryEventKind::Allocation && e.time_ps >= in.count_from_ps) {
      ++out.allocations_seen;
      if (e.allocation_bytes - e.requested_bytes >= kMiB) {
        ++out.rounded_up_1mib;
        out.rounded_up_1mib_bytes += e.allocation_bytes - e.requested_bytes;
      }
    }
    if (i > *peak_index) continue;
    if (e.kind == MemoryEventKind::Allocation)
      open[e.addr] = i;
    else
      open.erase(e.addr);
  }
  std::vector<std::size_t> live;
  live.reserve(open.size());
  for (const auto& [addr, index] : open) live.push_back(index);
  std::sort(live.begin(), live.end());
  out.live_allocations = static_cast<std::int64_t>(live.size());

  out.execution = holding_execution(in, at);
  if (out.execution) {
    const RuntimeExecution& x = *out.execution;
    out.in_use_at_start = bytes_in_use_before(mem, in.allocator, x.start_ps);
    const std::size_t first =
        std::size_t(std::lower_bound(mem.begin(), mem.end(), x.start_ps,
                                     [](const MemoryEvent& e, std::int64_t t) { return e.time_ps < t; }) -
                    mem.begin());
    std::unordered_set<std::uint64_t> allocated_in_window;  // addrs allocated since the start
    for (std::size_t i = first; i <= *peak_index; ++i) {
      const MemoryEvent& e = mem[i];
      if (e.allocator != in.allocator) continue;
      if (e.kind == MemoryEventKind::Allocation) {
        allocated_in_window.insert(e.addr);
        auto it = open.find(e.addr);
        if (it == open.end() || it->second != i) continue;  // freed again before the peak: nets out
        if (e.line == x.line && x.plane == in.host_plane && e.time_ps <= x.end_ps) {
          out.own_chunk_bytes += e.allocation_bytes;
          out.own_requested_bytes += e.requested_bytes;
          ++out.own_allocations;
        } else {
          out.other_chunk_bytes += e.allocation_bytes;
          ++out.other_allocations;
        }
      } else if (allocated_in_window.erase(e.addr) == 0) {
        // A chunk allocated before the execution started (or before the capture), freed inside it.
        out.freed_bytes += e.allocation_bytes;
        ++out.freed_count;
      }
    }
    out.unexplained_bytes = out.peak_bytes - (out.in_use_at_start + out.own_chunk_bytes +
                                              out.other_chunk_bytes - out.freed_bytes);
  }

  LiveLabelCache names;
  std::vector<LiveGroup> groups = group_live_by_host_event(mem.first(*peak_index + 1), live, in.executions,
                                                           in.host_plane, *in.host, out.peak_bytes, &names);
  // The peak's own execution is still running: what it holds is its temp and outputs so far, not outputs.
  if (out.execution) {
    const std::string own =
        "outputs of " + out.execution->label + " execution " + std::to_string(out.execution->number);
    const std::string running = "allocated by " + out.execution->label + " execution " +
                                std::to_string(out.execution->number) + ", running at the peak";
    for (LiveGroup& g : groups)
      if (g.label == own) g.label = running;
    for (auto& [index, label] : names.labels)
      if (label == own) label = running;
  }
  std::map<std::string, PeakModuleShare> shares;
  for (const LiveGroup& g : groups) {
    if (g.module.empty()) continue;
    PeakModuleShare& s = shares[g.module];
    s.module = g.module;
    s.bytes += g.bytes;
    s.requested_bytes += g.requested_bytes;
    s.allocations += g.count;
    ++s.executions;
  }
  for (auto& [name, s] : shares) out.modules.push_back(std::move(s));
  std::stable_sort(out.modules.begin(), out.modules.end(),
                   [](const PeakModuleShare& a, const PeakModuleShare& b) { return a.bytes > b.bytes; });
  out.live_groups_total = static_cast<std::int64_t>(groups.size());
  if (groups.size() > in.groups) groups.resize(in.groups);
  out.live_by_producer = std::move(groups);

  for (std::size_t i : live) {
    const MemoryEvent& e = mem[i];
    auto label = names.labels.find(i);
    out.largest_chunks.push_back(
        {e.requested_bytes, e.allocation_bytes, e.time_ps, label == names.labels.end() ? "" : label->second});
  }
  std::stable_sort(out.largest_chunks.begin(), out.largest_chunks.end(),
                   [](const PeakChunk& a, const PeakChunk& b) { return a.chunk_bytes > b.chunk_bytes; });
  if (out.largest_chunks.size() > in.top) out.largest_chunks.resize(in.top);
  return out;
}

std::optional<RuntimePeak> explain_runtime_peak(const capture::Capture& capture,
                                                const RuntimeAnalysis& runtime, std::uint32_t allocator,
                                                std::size_t top, std::size_t groups) {
  if (allocator >= runtime.allocators.size()) return std::nullopt;
  const AllocatorRuntime& a = runtime.allocators[allocator];
  if (a.allocations + a.deallocations == 0) return std::nullopt;
  RuntimePeakInput in;
  in.memory = capture.memory_events();
  if (runtime.time_window) {
    const auto end = std::upper_bound(in.memory.begin(), in.memory.end(), runtime.time_window->second,
                                      [](std::int64_t t, const MemoryEvent& e) { return t < e.time_ps; });
    in.memory = in.memory.first(std::size_t(end - in.memory.begin()));
    in.count_from_ps = runtime.time_window->first;
  }
  in.executions = runtime.all_executions();
  const HostTimeline host = host_timeline(capture, in.host_plane);
  in.host = &host;
  in.allocator = allocator;
  in.peak_bytes = a.peak_bytes_in_use;
  in.peak_time_ps = a.peak_time_ps;
  in.top = top;
  in.groups = groups;
  return explain_runtime_peak(in);
}

}  // namespace oomscope::analysis
