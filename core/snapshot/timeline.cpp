#include "core/snapshot/timeline.h"

#include <algorithm>

#include "core/snapshot/detail/address_index.h"

namespace oomscope::snapshot {

Timeline active_memory_timeline(const Snapshot& snap, std::int64_t device) {
  Timeline t;
  t.device = device;
  static const std::vector<TraceEntry> kNone;
  const auto& trace = device >= 0 && static_cast<std::size_t>(device) < snap.device_traces.size()
                          ? snap.device_traces[static_cast<std::size_t>(device)]
                          : kNone;
  detail::AddressIndex live;  // addr -> element
  // One element per alloc (and per unmatched free, or ghost block: few): reserved once, not doubled ~20 times
  // with a copy and fresh pages each time on a big trace.
  t.elements.reserve(static_cast<std::size_t>(std::count_if(
      trace.begin(), trace.end(), [](const TraceEntry& e) { return e.action == Action::Alloc; })));
  // Pass 1: pairing.
  std::vector<std::int32_t> delta_elem(trace.size(), -1);  // element an entry opens or closes
  std::int64_t running = 0;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEntry& e = trace[i];
    if (e.action == Action::Alloc) {
      t.elements.push_back(
          TimelineElement{e.addr, e.size, static_cast<std::int64_t>(i), -1, e.frames, false});
      live.insert_or_assign(e.addr, static_cast<std::uint32_t>(t.elements.size() - 1));
      delta_elem[i] = static_cast<std::int32_t>(t.elements.size() - 1);
      running += e.size;
      t.trace_only_peak = std::max(t.trace_only_peak, running);
    } else if (e.action == Action::FreeCompleted) {
      running -= e.size;
      if (const std::uint32_t* open = live.find(e.addr)) {
        const std::uint32_t el = *open;
        t.elements[el].end = static_cast<std::int64_t>(i);
        delta_elem[i] = static_cast<std::int32_t>(el);
        live.erase(e.addr);
      } else {
        t.elements.push_back(
            TimelineElement{e.addr, e.size, -1, static_cast<std::int64_t>(i), e.frames, false});
        delta_elem[i] = static_cast<std::int32_t>(t.elements.size() - 1);
        ++t.unmatched_frees;
        t.unmatched_free_bytes += e.size;
      }
    }
  }
  t.never_freed = live.size();
  // Ghosts: live blocks of this device whose address is not live at the end of the trace.
  for (const Segment& s : snap.segments) {
    if (s.device != device) continue;
    for (std::uint32_t b = s.first_block; b < s.first_block + s.block_count; ++b) {
      const Block& blk = snap.blocks[b];
      if (blk.state != BlockState::ActiveAllocated || live.contains(blk.address)) continue;
      t.elements.push_back(TimelineElement{blk.address, blk.effective_requested, -1, -1, blk.frames, true});
      ++t.ghosts;
      t.ghost_bytes += blk.effective_requested;
    }
  }
  for (const TimelineElement& el : t.elements)
    if (el.start < 0) t.initial_bytes += el.size;
  // Pass 2: replay.
  t.totals.resize(trace.size());
  std::int64_t total = t.initial_bytes;
  t.peak_bytes = total;
  t.peak_index = -1;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (delta_elem[i] >= 0) {
      const TimelineElement& el = t.elements[static_cast<std::size_t>(delta_elem[i])];
      total += (el.start == static_cast<std::int64_t>(i)) ? el.size : -el.size;
    }
    t.totals[i] = total;
    if (total > t.peak_bytes) {
      t.peak_bytes = total;
      t.peak_index = static_cast<std::int64_t>(i);
    }
  }
  t.final_bytes = total;
  return t;
}

std::vector<std::uint32_t> live_elements(const Timeline& t, std::int64_t index) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < t.elements.size(); ++i)
    if (t.elements[i].live_at(index)) out.push_back(static_cast<std::uint32_t>(i));
  std::stable_sort(out.begin(), out.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return t.elements[a].size > t.elements[b].size; });
  return out;
}

std::int64_t default_device(const Snapshot& snap) {
  std::int64_t best = -1;
  std::size_t best_len = 0;
  for (std::size_t d = 0; d < snap.device_traces.size(); ++d)
    if (snap.device_traces[d].size() > best_len)
      best_len = snap.device_traces[d].size(), best = static_cast<std::int64_t>(d);
  if (best >= 0) return best;
  for (const Segment& s : snap.segments) return s.device;
  return 0;
}

}  // namespace oomscope::snapshot
