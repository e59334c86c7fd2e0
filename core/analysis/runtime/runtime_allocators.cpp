#include "core/analysis/runtime/runtime_allocators.h"

#include <algorithm>
#include <unordered_map>

#include "core/analysis/plan/plan_curve.h"

namespace oomscope::analysis {

using capture::MemoryEvent;
using capture::MemoryEventKind;

namespace {

// In use before an event, from its own after-figure: an allocation added its chunk, a free removed it.
std::int64_t in_use_before_event(const MemoryEvent& e) {
  return e.kind == MemoryEventKind::Allocation ? e.bytes_in_use - e.allocation_bytes
                                               : e.bytes_in_use + e.allocation_bytes;
}

}  // namespace

std::vector<AllocatorRuntime> analyze_allocators(std::span<const MemoryEvent> events,
                                                 std::span<const std::string> names,
                                                 std::size_t series_points) {
  std::vector<AllocatorRuntime> out(names.size());
  std::vector<std::vector<std::int64_t>> in_use(names.size());
  std::vector<std::vector<std::int64_t>> times(names.size());
  std::vector<std::vector<std::int64_t>> reserved(names.size());
  std::vector<std::vector<std::int64_t>> reserved_times(names.size());
  std::vector<std::unordered_map<std::uint64_t, std::int64_t>> live(names.size());  // addr -> bytes
  for (std::size_t i = 0; i < names.size(); ++i) {
    out[i].index = static_cast<std::uint32_t>(i);
    out[i].name = names[i];
  }
  for (const MemoryEvent& e : events) {
    if (e.allocator >= out.size()) continue;
    AllocatorRuntime& a = out[e.allocator];
    const bool first = a.allocations + a.deallocations == 0;
    if (first) {
      a.first_time_ps = e.time_ps;
      a.bytes_in_use_at_start = in_use_before_event(e);
    }
    a.last_time_ps = e.time_ps;
    a.bytes_in_use_at_end = e.bytes_in_use;
    a.capacity_bytes = std::max(
        a.capacity_bytes, e.bytes_in_use + e.bytes_available + std::max<std::int64_t>(0, e.bytes_reserved));
    a.lifetime_peak_bytes = std::max(a.lifetime_peak_bytes, e.peak_bytes_in_use);
    if (first || e.bytes_in_use > a.peak_bytes_in_use) {
      a.peak_bytes_in_use = e.bytes_in_use;
      a.peak_time_ps = e.time_ps;
    }
    in_use[e.allocator].push_back(e.bytes_in_use);
    times[e.allocator].push_back(e.time_ps);
    if (e.bytes_reserved >= 0) {  // the event carries the stat
      if (a.reserved_events == 0 || e.bytes_reserved > a.peak_bytes_reserved) {
        a.peak_bytes_reserved = e.bytes_reserved;
        a.peak_reserved_time_ps = e.time_ps;
      }
      ++a.reserved_events;
      reserved[e.allocator].push_back(e.bytes_reserved);
      reserved_times[e.allocator].push_back(e.time_ps);
    }
    auto& open = live[e.allocator];
    if (e.kind == MemoryEventKind::Allocation) {
      ++a.allocations;
      auto [it, inserted] = open.try_emplace(e.addr, e.allocation_bytes);
      if (!inserted) {
        ++a.reused_without_free;
        it->second = e.allocation_bytes;
      }
    } else {
      ++a.deallocations;
      auto it = open.find(e.addr);
      if (it == open.end()) {
        ++a.unmatched_frees;
        a.unmatched_free_bytes += e.allocation_bytes;
      } else {
        ++a.paired;
        open.erase(it);
      }
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const auto& [addr, bytes] : live[i]) {
      ++out[i].live_at_end;
      out[i].live_at_end_bytes += bytes;
    }
    for (const CurvePoint& p : downsample_min_max(in_use[i], series_points))
      out[i].series.push_back({times[i][static_cast<std::size_t>(p.index)], p.value});
    for (const CurvePoint& p : downsample_min_max(reserved[i], series_points))
      out[i].reserved_series.push_back({reserved_times[i][static_cast<std::size_t>(p.index)], p.value});
  }
  return out;
}

std::int64_t bytes_in_use_before(std::span<const MemoryEvent> events, std::uint32_t allocator,
                                 std::int64_t t) {
  // Events are sorted by time: find the first event at or after t, then walk back to this allocator.
  auto it = std::lower_bound(events.begin(), events.end(), t,
                             [](const MemoryEvent& e, std::int64_t v) { return e.time_ps < v; });
  for (auto back = it; back != events.begin();) {
    --back;
    if (back->allocator == allocator) return back->bytes_in_use;
  }
  for (; it != events.end(); ++it)
    if (it->allocator == allocator) return in_use_before_event(*it);
  return 0;
}

std::vector<std::size_t> live_allocations_before(std::span<const MemoryEvent> events, std::uint32_t allocator,
                                                 std::int64_t t) {
  std::unordered_map<std::uint64_t, std::size_t> open;  // addr -> event index
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < events.size() && events[i].time_ps < t; ++i) {
    const MemoryEvent& e = events[i];
    if (e.allocator != allocator) continue;
    if (e.kind == MemoryEventKind::Allocation) {
      open[e.addr] = i;
    } else {
      open.erase(e.addr);
    }
  }
  order.reserve(open.size());
  for (const auto& [addr, index] : open) order.push_back(index);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace oomscope::analysis
