// Once the scan is complete: allocator names and order, time order of every table, and the per-allocator
// summaries.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <numeric>
#include <system_error>
#include <thread>

#include "core/capture/detail/capture_builder.h"

namespace oomscope::capture {

namespace {

// "GPU_2_bfc" before "GPU_10_bfc": digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
    if (da && db) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && a[ie] >= '0' && a[ie] <= '9') ++ie;
      while (je < b.size() && b[je] >= '0' && b[je] <= '9') ++je;
      std::string_view na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// A sort key of 12 bytes, not the 16 of a (int64, uint32) pair: the time split into its signed high and
// unsigned low halves compares as the int64 does. On the 1 GB TPU capture the 9 M device events' keys are
// held beside everything else at the read's peak (108 instead of 144 MB).
struct TimeKey {
  std::int32_t high;
  std::uint32_t low, index;
  static TimeKey of(std::int64_t time, std::size_t index) {
    const auto bits = static_cast<std::uint64_t>(time);
    return TimeKey{static_cast<std::int32_t>(time >> 32), static_cast<std::uint32_t>(bits),
                   static_cast<std::uint32_t>(index)};
  }
  bool operator<(const TimeKey& o) const {
    if (high != o.high) return high < o.high;
    if (low != o.low) return low < o.low;
    return index < o.index;
  }
};
static_assert(sizeof(TimeKey) == 12);

// A stable sort by time. The tables arrive as many sorted runs (one per line entry), but merge-sorting the
// records themselves (up to 104 bytes each) was a fifth of a big capture's read; sorting (time, index)
// keys costs a fraction. The records are then put in that order in place, each moved once along the cycles
// of the permutation: copying them into a second table (as before) held both tables at once (hundreds of
// MiB of launch events on the 1 GB conv3d capture) and faulted in the new one page by page.
template <typename T>
void sort_by_time(std::vector<T>& v) {
  if (std::is_sorted(v.begin(), v.end(), [](const T& a, const T& b) { return a.time_ps < b.time_ps; }))
    return;
  std::vector<TimeKey> keys;  // tables hold far fewer than 2^32
  keys.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) keys.push_back(TimeKey::of(v[i].time_ps, i));
  std::sort(keys.begin(), keys.end());  // equal times keep their order: the index breaks the tie
  // keys[k].index is the record that belongs at k; once k is filled, it is set to k.
  for (std::uint32_t k = 0; k < keys.size(); ++k) {
    if (keys[k].index == k) continue;
    T held = std::move(v[k]);
    std::uint32_t at = k;
    while (true) {
      const std::uint32_t from = keys[at].index;
      keys[at].index = at;
      if (from == k) {
        v[at] = std::move(held);
        break;
      }
      v[at] = std::move(v[from]);
      at = from;
    }
  }
}

}  // namespace

void CaptureBuilder::finish_runtime() {
  Capture& c = *capture_;

  // The launch and device-event tables (the biggest on a GPU capture) are put in time order on a second
  // core while this one does the lines and the allocator tables; each table is sorted by one thread only,
  // so the result does not depend on timing. Without a thread to be had, they are sorted here.
  std::exception_ptr side_error;
  const auto sort_side = [&c, &side_error] {
    try {
      sort_by_time(c.device_events_);
      sort_by_time(c.launches_);
    } catch (...) {
      side_error = std::current_exception();
    }
  };
  std::jthread side;
  try {
    side = std::jthread(sort_side);
  } catch (const std::system_error&) {
    sort_side();
  }

  // Lines written in several parts (or out of order) are put in time order; appending parts left
  // growth slack in their vectors, which a big capture should not keep.
  const auto earlier = [](const EventRecord& a, const EventRecord& b) { return a.start_ps() < b.start_ps(); };
  for (std::size_t p = 0; p < c.planes_.size(); ++p) {
    if (!plane_needs_sort_[p]) continue;
    std::vector<std::uint32_t>& unsorted = unsorted_lines_[p];  // the scan saw each of them go out of order
    std::sort(unsorted.begin(), unsorted.end());
    unsorted.erase(std::unique(unsorted.begin(), unsorted.end()), unsorted.end());
    for (const std::uint32_t i : unsorted) {
      std::vector<EventRecord>& events = c.planes_[p].lines[i].events;
      std::stable_sort(events.begin(), events.end(), earlier);
    }
    for (Line& line : c.planes_[p].lines) line.events.shrink_to_fit();
  }

  // Allocators without allocator_name were keyed "\x01<ordinal>"; name them after the device kind.
  bool tpu = false;
  for (const Plane& plane : c.planes_) tpu = tpu || plane.name.starts_with("/device:TPU:");
  std::vector<std::string> names = allocator_names_;
  for (std::string& n : names) {
    if (n.empty() || n[0] != '\x01') continue;
    n = n == "\x01?" ? "unnamed allocator" : (tpu ? "TPU_" : "device_") + n.substr(1);
  }
  std::vector<std::uint32_t> order(names.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return natural_less(names[a], names[b]); });
  std::vector<std::uint32_t> final_index(names.size());
  c.allocators_.resize(names.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) {
    final_index[order[k]] = k;
    c.allocators_[k].name = names[order[k]];
  }
  for (MemoryEvent& m : c.memory_events_) m.allocator = final_index[m.allocator];

  sort_by_time(c.memory_events_);
  sort_by_time(c.retries_);
  sort_by_time(c.executions_);
  if (side.joinable()) side.join();
  if (side_error) std::rethrow_exception(side_error);

  std::vector<bool> seen(c.allocators_.size(), false);
  for (const MemoryEvent& m : c.memory_events_) {
    AllocatorSummary& a = c.allocators_[m.allocator];
    if (!seen[m.allocator]) {
      seen[m.allocator] = true;
      a.first_time_ps = m.time_ps;
      a.max_bytes_in_use = m.bytes_in_use;
      // Capacity is the allocator's limit: in use + reserved + available (XProf's memory_capacity);
      // bytes_reserved is 0 for the GPU BFC, not for the TPU allocator.
      a.capacity_bytes = saturating_add(
          saturating_add(m.bytes_in_use, std::max<std::int64_t>(0, m.bytes_reserved)), m.bytes_available);
    }
    a.last_time_ps = m.time_ps;
    if (m.kind == MemoryEventKind::Allocation) {
      ++a.allocations;
      a.largest_allocation = std::max(a.largest_allocation, m.allocation_bytes);
    } else {
      ++a.deallocations;
    }
    if (m.bytes_in_use > a.max_bytes_in_use) {
      a.max_bytes_in_use = m.bytes_in_use;
      a.capacity_bytes = saturating_add(
          saturating_add(m.bytes_in_use, std::max<std::int64_t>(0, m.bytes_reserved)), m.bytes_available);
    }
    a.peak_bytes_in_use = std::max(a.peak_bytes_in_use, m.peak_bytes_in_use);
  }

  // "<module>:XLA GPU module" spans carry no program id; when exactly one module of the plan has that
  // name, the span belongs to it.
  std::map<std::string_view, std::optional<std::uint64_t>> by_name;
  for (const Module& m : c.modules_) {
    auto [it, created] = by_name.try_emplace(m.name, m.program_id);
    if (!created) it->second.reset();
  }
  for (ExecutionSpan& s : c.executions_) {
    if (s.kind != ExecutionKind::XlaModule || s.program_id) continue;
    if (auto it = by_name.find(s.name); it != by_name.end()) s.program_id = it->second;
  }
}

}  // namespace oomscope::capture
