#include "core/allocator/start_state.h"

#include <algorithm>
#include <map>

#include "core/snapshot/allocator_state.h"

namespace oomscope::allocator {

namespace {

using snapshot::Action;

bool is_default_pool(const snapshot::Segment& s) { return s.pool_id.first == 0 && s.pool_id.second == 0; }

std::int64_t stream_value(const snapshot::Snapshot& snap, std::uint16_t index) {
  return index < snap.streams.size() ? snap.streams[index] : 0;
}

}  // namespace

bool in_ranges(const std::vector<AddressRange>& ranges, std::uint64_t addr) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [addr](const AddressRange& r) { return addr >= r.begin && addr < r.end; });
}

StartState build_start_state(const snapshot::Snapshot& snap, std::int64_t device) {
  StartState out;
  // What the final snapshot says of each segment: stream, expandable, pool.
  struct Known {
    std::uint64_t end;
    std::int64_t stream;
    bool expandable;
  };
  std::map<std::uint64_t, Known> known;
  for (const snapshot::Segment& s : snap.segments) {
    if (s.device != device) continue;
    const std::uint64_t end = s.address + static_cast<std::uint64_t>(s.total_size);
    if (!is_default_pool(s)) {
      out.private_pools.push_back({s.address, end});
      continue;
    }
    known[s.address] = {end, s.stream, s.is_expandable};
  }
  // Segments freed or unmapped during the trace: their stream and kind come from the trace.
  const auto& traces = snap.device_traces;
  const std::vector<snapshot::TraceEntry>* trace =
      device >= 0 && static_cast<std::size_t>(device) < traces.size()
          ? &traces[static_cast<std::size_t>(device)]
          : nullptr;
  std::map<std::uint64_t, Known> from_trace;
  if (trace) {
    for (const snapshot::TraceEntry& e : *trace) {
      if (e.action == Action::SegmentFree || e.action == Action::SegmentUnmap ||
          e.action == Action::SegmentMap || e.action == Action::SegmentAlloc)
        from_trace.emplace(e.addr,
                           Known{e.addr + static_cast<std::uint64_t>(e.size), stream_value(snap, e.stream),
                                 e.action == Action::SegmentUnmap || e.action == Action::SegmentMap});
    }
  }
  auto describe = [&](std::uint64_t addr, std::uint64_t end) -> Known {
    for (const auto* m : {&known, &from_trace}) {
      auto it = m->upper_bound(addr);
      if (it != m->begin()) {
        --it;
        if (addr < it->second.end || it->first == addr) return it->second;
      }
      it = m->lower_bound(addr);
      if (it != m->end() && it->first < end) return it->second;
    }
    return {end, 0, false};
  };

  const snapshot::AllocatorState st = snapshot::allocator_state_at(snap, device, -1);
  out.outside_segments = st.outside_segments;
  for (const snapshot::StateSegment& s : st.segments) {
    if (in_ranges(out.private_pools, s.address)) continue;
    const std::uint64_t end = s.address + static_cast<std::uint64_t>(s.size);
    const Known k = describe(s.address, end);
    ModelSegment m;
    m.addr = s.address;
    m.size = static_cast<std::uint64_t>(s.size);
    m.large = s.large;
    m.stream = k.stream;
    m.expandable = k.expandable;
    for (const snapshot::StateBlock& b : s.blocks) {
      m.blocks.push_back({b.addr, static_cast<std::uint64_t>(b.size), static_cast<std::uint64_t>(b.requested),
                          b.pending_free ? ModelBlockState::PendingFree : ModelBlockState::Allocated});
    }
    out.segments.push_back(std::move(m));
  }
  out.empty_device = out.segments.empty();
  if (!out.private_pools.empty())
    out.notes.push_back(
        std::to_string(out.private_pools.size()) +
        " segments belong to private pools (CUDA graphs or MemPool); the model does not serve "
        "them, and trace entries inside them are skipped");
  if (out.outside_segments > 0)
    out.notes.push_back(
        std::to_string(out.outside_segments) +
        " blocks freed in the trace lie in no known segment; they are left out of the start state");
  return out;
}

std::vector<ModelSegment> recorded_final_segments(const snapshot::Snapshot& snap, std::int64_t device) {
  std::vector<ModelSegment> out;
  for (const snapshot::Segment& s : snap.segments) {
    if (s.device != device || !is_default_pool(s)) continue;
    ModelSegment m;
    m.addr = s.address;
    m.size = static_cast<std::uint64_t>(s.total_size);
    m.stream = s.stream;
    m.large = s.large;
    m.expandable = s.is_expandable;
    for (std::uint32_t i = s.first_block; i < s.first_block + s.block_count; ++i) {
      const snapshot::Block& b = snap.blocks[i];
      m.blocks.push_back({b.address, static_cast<std::uint64_t>(b.size),
                          static_cast<std::uint64_t>(b.requested_size),
                          b.state == snapshot::BlockState::ActiveAllocated     ? ModelBlockState::Allocated
                          : b.state == snapshot::BlockState::ActivePendingFree ? ModelBlockState::PendingFree
                                                                               : ModelBlockState::Free});
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(),
            [](const ModelSegment& a, const ModelSegment& b) { return a.addr < b.addr; });
  return out;
}

}  // namespace oomscope::allocator
