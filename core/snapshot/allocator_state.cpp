#include "core/snapshot/allocator_state.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace oomscope::snapshot {

namespace {

struct Seg {
  std::int64_t size = 0;
  bool large = true;
  std::map<std::uint64_t, StateBlock> blocks;
  PoolId pool{0, 0};
  bool pool_known = true;
  bool expandable = false;
};
using SegMap = std::map<std::uint64_t, Seg>;

std::int64_t round512(std::int64_t n) { return n <= 512 ? 512 : (n + 511) / 512 * 512; }

// The segment holding addr, or end().
SegMap::iterator containing(SegMap& segs, std::uint64_t addr) {
  auto it = segs.upper_bound(addr);
  if (it == segs.begin()) return segs.end();
  --it;
  return addr < it->first + static_cast<std::uint64_t>(it->second.size) ? it : segs.end();
}

// Removes [addr, addr+size) from the segment ranges (undoing a segment_alloc or segment_map).
void remove_range(SegMap& segs, std::uint64_t addr, std::int64_t size) {
  auto it = containing(segs, addr);
  if (it == segs.end()) return;
  const std::uint64_t base = it->first;
  Seg seg = std::move(it->second);
  segs.erase(it);
  const std::uint64_t end = addr + static_cast<std::uint64_t>(size);
  const std::uint64_t seg_end = base + static_cast<std::uint64_t>(seg.size);
  if (addr > base) {
    Seg left{static_cast<std::int64_t>(addr - base), seg.large, {}, seg.pool, seg.pool_known, seg.expandable};
    for (auto& [a, b] : seg.blocks)
      if (a < addr) left.blocks.emplace(a, b);
    segs.emplace(base, std::move(left));
  }
  if (end < seg_end) {
    Seg right{
        static_cast<std::int64_t>(seg_end - end), seg.large, {}, seg.pool, seg.pool_known, seg.expandable};
    for (auto& [a, b] : seg.blocks)
      if (a >= end) right.blocks.emplace(a, b);
    segs.emplace(end, std::move(right));
  }
}

// Adds [addr, addr+size) (undoing a segment_free or segment_unmap); merges with touching neighbours when
// asked (an unmapped range of an expandable segment takes its neighbour's pool). The trace does not say
// which pool a freed segment belonged to, so a range that stays on its own has no known pool.
void add_range(SegMap& segs, std::uint64_t addr, std::int64_t size, bool large, bool merge) {
  Seg seg{size, large, {}, {0, 0}, false, merge};
  if (merge) {
    auto next = segs.find(addr + static_cast<std::uint64_t>(size));
    if (next != segs.end()) {
      seg.size += next->second.size;
      seg.pool = next->second.pool;
      seg.pool_known = next->second.pool_known;
      seg.blocks.merge(next->second.blocks);
      segs.erase(next);
    }
    auto prev = segs.lower_bound(addr);
    if (prev != segs.begin()) {
      --prev;
      if (prev->first + static_cast<std::uint64_t>(prev->second.size) == addr) {
        prev->second.size += seg.size;
        prev->second.blocks.merge(seg.blocks);
        return;
      }
    }
  }
  segs.emplace(addr, std::move(seg));
}

}  // namespace

AllocatorState allocator_state_at(const Snapshot& snap, std::int64_t device, std::int64_t index) {
  static const std::vector<TraceEntry> kNone;
  const auto& trace = device >= 0 && static_cast<std::size_t>(device) < snap.device_traces.size()
                          ? snap.device_traces[static_cast<std::size_t>(device)]
                          : kNone;
  const auto n = static_cast<std::int64_t>(trace.size());
  index = std::clamp<std::int64_t>(index, -1, n > 0 ? n - 1 : -1);
  if (n == 0) index = -1;

  SegMap segs;
  std::map<std::uint64_t, std::int64_t> known_sizes;  // block addr -> rounded size seen in the snapshot
  for (const Segment& s : snap.segments) {
    if (s.device != device) continue;
    Seg& seg = segs[s.address];
    seg.size = s.total_size;
    seg.large = s.large;
    seg.pool = s.pool_id;
    seg.expandable = s.is_expandable;
    for (std::uint32_t i = s.first_block; i < s.first_block + s.block_count; ++i) {
      const Block& b = snap.blocks[i];
      known_sizes[b.address] = b.size;
      if (!b.active()) continue;
      seg.blocks[b.address] = StateBlock{b.address, b.size, b.effective_requested,
                                         b.state == BlockState::ActivePendingFree, b.frames};
    }
  }
  AllocatorState st;
  st.device = device;
  st.index = n == 0 ? -1 : index;
  for (std::int64_t i = n - 1; i > index; --i) {
    const TraceEntry& e = trace[static_cast<std::size_t>(i)];
    switch (e.action) {
      case Action::Alloc: {
        auto it = containing(segs, e.addr);
        if (it != segs.end()) it->second.blocks.erase(e.addr);
        // Before this entry the address held another block: the snapshot's size there is not its size.
        known_sizes.erase(e.addr);
        break;
      }
      case Action::FreeCompleted: {
        auto it = containing(segs, e.addr);
        if (it == segs.end()) {
          ++st.outside_segments;
          break;
        }
        auto known = known_sizes.find(e.addr);
        const std::int64_t rounded =
            known != known_sizes.end() && known->second >= e.size ? known->second : round512(e.size);
        it->second.blocks[e.addr] = StateBlock{e.addr, rounded, e.size, true, e.frames};
        break;
      }
      case Action::FreeRequested: {
        auto it = containing(segs, e.addr);
        if (it != segs.end())
          if (auto b = it->second.blocks.find(e.addr); b != it->second.blocks.end())
            b->second.pending_free = false;
        break;
      }
      case Action::SegmentAlloc:
        remove_range(segs, e.addr, e.size);
        break;
      case Action::SegmentMap:
        remove_range(segs, e.addr, e.size);
        break;
      case Action::SegmentFree:
        add_range(segs, e.addr, e.size, e.size > (2 << 20), false);
        break;
      case Action::SegmentUnmap:
        add_range(segs, e.addr, e.size, true, true);
        break;
      default:
        break;
    }
  }
  for (auto& [addr, seg] : segs) {
    StateSegment out;
    out.address = addr;
    out.size = seg.size;
    out.large = seg.large;
    out.pool = seg.pool;
    out.pool_known = seg.pool_known;
    out.expandable = seg.expandable;
    std::uint64_t cursor = addr;
    std::int64_t used = 0;
    std::size_t pending = 0;
    for (auto& [a, b] : seg.blocks) {
      if (a > cursor) out.largest_free = std::max(out.largest_free, static_cast<std::int64_t>(a - cursor));
      cursor = std::max(cursor, a + static_cast<std::uint64_t>(b.size));
      used += b.size;
      st.allocated += b.requested;
      st.allocated_rounded += b.size;
      st.rounding_waste += std::max<std::int64_t>(0, b.size - b.requested);
      if (b.pending_free) {
        ++pending;
        st.pending_free_bytes += b.size;
      } else {
        ++st.active_allocated_blocks;
        st.active_allocated_bytes += b.size;
        st.active_requested_bytes += b.requested;
      }
      out.blocks.push_back(b);
    }
    if (pending) {
      st.pending_free_blocks += pending;
      ++st.pending_free_segments;
      st.pinned_by_pending += pending == seg.blocks.size();
    }
    const std::uint64_t end = addr + static_cast<std::uint64_t>(seg.size);
    if (end > cursor) out.largest_free = std::max(out.largest_free, static_cast<std::int64_t>(end - cursor));
    out.free_bytes = std::max<std::int64_t>(0, seg.size - used);
    st.reserved += seg.size;
    st.free_bytes += out.free_bytes;
    st.live_blocks += out.blocks.size();
    st.largest_free = std::max(st.largest_free, out.largest_free);
    (seg.large ? st.largest_free_large : st.largest_free_small) =
        std::max(seg.large ? st.largest_free_large : st.largest_free_small, out.largest_free);
    st.segments.push_back(std::move(out));
  }
  return st;
}

}  // namespace oomscope::snapshot
