#include "core/allocator/replay.h"

#include <algorithm>
#include <unordered_map>

#include "core/allocator/recorded_addresses.h"
#include "core/allocator/replay_validation.h"
#include "core/allocator/start_state.h"
#include "core/util/error.h"

namespace oomscope::allocator {

namespace {

using snapshot::Action;
using snapshot::TraceEntry;

bool is_segment_event(Action a) {
  return a == Action::SegmentAlloc || a == Action::SegmentFree || a == Action::SegmentMap ||
         a == Action::SegmentUnmap;
}

bool is_release(Action a) { return a == Action::SegmentFree || a == Action::SegmentUnmap; }

// A run of segment_free / segment_unmap entries released the cache: torch.cuda.empty_cache(), or the retry
// of a cudaMalloc that failed (both free every unsplit cached segment; the trace cannot tell them apart).
// Before an oom entry it is the failing request's own retry, which the replay of that request makes.
bool releases_cache_here(const std::vector<TraceEntry>& t, std::size_t i) {
  std::size_t j = i;
  while (j < t.size() && is_release(t[j].action)) ++j;
  return j == t.size() || t[j].action != Action::Oom;
}

std::uint64_t address_floor(const snapshot::Snapshot& snap, const std::vector<TraceEntry>& t) {
  std::uint64_t top = 0;
  for (const snapshot::Segment& s : snap.segments)
    top = std::max(top, s.address + static_cast<std::uint64_t>(s.total_size));
  for (const TraceEntry& e : t)
    if (e.action != Action::Oom)
      top = std::max(top, e.addr + static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0)));
  return top + (1ull << 30);
}

}  // namespace

ReplayResult replay(const snapshot::Snapshot& snap, const ReplayOptions& o, const std::stop_token& stop) {
  static const std::vector<TraceEntry> kNone;
  const auto dev = static_cast<std::size_t>(o.device);
  const std::vector<TraceEntry>& trace =
      o.device >= 0 && dev < snap.device_traces.size() ? snap.device_traces[dev] : kNone;
  ReplayResult r;
  r.config = o.config;
  r.capacity = o.capacity;
  r.entries = trace.size();

  StartState start = build_start_state(snap, o.device);
  r.notes = start.notes;
  RecordedAddresses addresses(trace, address_floor(snap, trace));
  const std::uint64_t device_bytes = o.capacity != kNoLimit ? o.capacity : (1ull << 40);
  CachingAllocator model(o.config, o.capacity, addresses, device_bytes);
  for (const ModelSegment& s : start.segments) addresses.occupy(s.addr, s.size);
  const std::vector<BlockId> start_ids = model.add_segments(start.segments);
  std::unordered_map<std::uint64_t, BlockId> live;  // recorded address -> model block
  live.reserve(start_ids.size() + 1024);
  for (BlockId id : start_ids) live[model.block(id).ptr] = id;  // start blocks sit at their recorded address
  r.start_reserved = model.ledger().reserved;
  r.start_allocated = model.ledger().allocated;

  if (o.keep_curve) r.curve.push_back({-1, r.start_reserved, r.start_allocated, model.ledger().requested});
  ValidationBuilder check(o.validate);
  std::uint64_t peak = model.ledger().reserved;
  r.peak_reserved = peak;
  std::size_t events_seen = 0;
  bool in_release_run = false;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if ((i & 4095) == 0 && stop.stop_requested()) throw Cancelled(snap.path);
    const TraceEntry& e = trace[i];
    const std::int64_t stream = e.stream < snap.streams.size() ? snap.streams[e.stream] : 0;
    const auto index = static_cast<std::int64_t>(i);
    if (!is_release(e.action)) in_release_run = false;
    switch (e.action) {
      case Action::Alloc: {
        if (in_ranges(start.private_pools, e.addr)) break;
        OomReport oom;
        const BlockId b = model.malloc(static_cast<std::uint64_t>(e.size), stream, index, &oom.detail);
        if (b == kNoBlock) {
          oom.trace_index = index;
          oom.time_us = e.time_us;
          oom.frames = e.frames;
          r.first_oom = oom;
          check.note_oom(index);
          break;
        }
        if (!live.emplace(e.addr, b).second) {
          check.unexplained(index, "an alloc at an address the replay still holds live");
          live[e.addr] = b;
        }
        check.alloc(index, e.addr, model.block(b).ptr);
        break;
      }
      case Action::FreeRequested: {
        auto it = live.find(e.addr);
        if (it == live.end()) {
          if (!in_ranges(start.private_pools, e.addr))
            check.unexplained(index, "a free of a block the replay never held");
          break;
        }
        const bool immediate = i + 1 < trace.size() && trace[i + 1].action == Action::FreeCompleted &&
                               trace[i + 1].addr == e.addr;
        if (model.block(it->second).allocated) model.free(it->second, !immediate);
        if (immediate) live.erase(it);
        break;
      }
      case Action::FreeCompleted: {
        auto it = live.find(e.addr);
        if (it == live.end()) break;  // completed right after its free_requested
        model.complete_free(it->second);
        live.erase(it);
        break;
      }
      case Action::SegmentFree:
      case Action::SegmentUnmap:
        if (!in_release_run && releases_cache_here(trace, i)) model.empty_cache();
        in_release_run = true;
        break;
      case Action::Oom: {
        // The program asked for e.size (rounded) bytes and the real allocator failed. Under the recorded
        // capacity, the device then had e.addr bytes free after the retry released the cache.
        const std::uint64_t saved = model.capacity();
        const std::uint64_t at_oom = model.ledger().reserved - model.releasable_bytes() + e.addr;
        if (o.capacity == kNoLimit && o.recorded_oom_capacity) {
          model.set_capacity(at_oom);
          if (!r.oom_capacity) r.oom_capacity = at_oom;
        }
        OomReport oom;
        const BlockId b = model.malloc(static_cast<std::uint64_t>(e.size), stream, index, &oom.detail);
        model.set_capacity(saved);
        oom.trace_index = index;
        oom.time_us = e.time_us;
        oom.frames = e.frames;
        oom.recorded = true;
        oom.device_free = e.addr;
        if (b == kNoBlock) {
          r.first_oom = oom;
        } else {
          if (o.capacity == kNoLimit && o.recorded_oom_capacity)
            check.unexplained(index, "the recording ran out of memory here; the model found room");
          else
            r.notes.push_back("the request that failed in the recording (entry " + std::to_string(index) +
                              ") fits under these settings; the trace ends or goes on as recorded");
        }
        break;
      }
      default:
        break;
    }
    // The model's segment events, tagged with the entry that caused them.
    const auto& events = model.ledger().events;
    for (; events_seen < events.size(); ++events_seen) check.model_event(events[events_seen], index);
    if (is_segment_event(e.action)) check.recorded_event(e, index);
    if (model.ledger().reserved != peak) {
      if (model.ledger().reserved > r.peak_reserved) {
        r.peak_reserved = model.ledger().reserved;
        r.peak_reserved_index = index;
      }
      peak = model.ledger().reserved;
    }
    if (o.keep_curve && (r.curve.back().reserved != model.ledger().reserved ||
                         r.curve.back().allocated != model.ledger().allocated ||
                         r.curve.back().requested != model.ledger().requested))
      r.curve.push_back({index, model.ledger().reserved, model.ledger().allocated, model.ledger().requested});
    r.replayed = i + 1;
    if (r.first_oom && !r.first_oom->recorded) break;
    if (r.first_oom && r.first_oom->recorded && o.capacity != kNoLimit) break;
  }
  r.peak_allocated = model.ledger().peak_allocated;
  r.peak_requested = model.ledger().peak_requested;
  r.final_reserved = model.ledger().reserved;
  if (o.validate) {
    const bool complete = r.replayed == r.entries;
    r.validation = check.finish(model.segments(), recorded_final_segments(snap, o.device), complete);
  }
  return r;
}

}  // namespace oomscope::allocator
