#include "core/snapshot/snapshot_analysis.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace oomscope::snapshot {

namespace {

// The Active Cached Segment Timeline's maximum (docs/snapshot-format.md, 3, "Segment timeline"): segments
// paired like allocations.
std::int64_t reserved_peak(const Snapshot& snap, std::int64_t device) {
  static const std::vector<TraceEntry> kNone;
  const auto& trace = static_cast<std::size_t>(device) < snap.device_traces.size()
                          ? snap.device_traces[static_cast<std::size_t>(device)]
                          : kNone;
  std::unordered_map<std::uint64_t, std::int64_t> live;
  std::int64_t initial = 0;
  std::vector<std::int64_t> delta(trace.size(), 0);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEntry& e = trace[i];
    if (e.action == Action::SegmentAlloc) {
      live[e.addr] = e.size;
      delta[i] = e.size;
    } else if (e.action == Action::SegmentFree) {
      if (live.erase(e.addr))
        delta[i] = -e.size;
      else
        initial += e.size, delta[i] = -e.size;
    }
  }
  for (const Segment& s : snap.segments)
    if (s.device == device && !live.count(s.address)) initial += s.total_size;
  std::int64_t total = initial, peak = initial;
  for (std::int64_t d : delta) peak = std::max(peak, total += d);
  return peak;
}

DeviceAnalysis analyse_device(const Snapshot& snap, const Categoriser& categoriser, std::int64_t device,
                              std::size_t top) {
  DeviceAnalysis d;
  d.device = device;
  static const std::vector<TraceEntry> kNone;
  const auto& trace = static_cast<std::size_t>(device) < snap.device_traces.size()
                          ? snap.device_traces[static_cast<std::size_t>(device)]
                          : kNone;
  d.trace_entries = trace.size();
  for (const TraceEntry& e : trace)
    if (e.time_us >= 0) {
      if (d.first_time_us < 0) d.first_time_us = e.time_us;
      d.last_time_us = e.time_us;
    }
  d.timeline = active_memory_timeline(snap, device);
  const Timeline& t = d.timeline;
  // Per category label, in the order the labels are first met; the rule of the largest allocation in each.
  std::vector<CategoryTotal> cats;
  std::vector<std::int64_t> cat_largest;
  const EntryContextIndex contexts(snap, device);
  for (std::uint32_t i : live_elements(t, t.peak_index)) {
    const TimelineElement& el = t.elements[i];
    PeakAllocation p;
    p.element = i;
    p.bytes = el.size;
    p.addr = el.addr;
    p.alloc_index = el.start;
    p.ghost = el.ghost;
    p.frames = el.frames;
    p.category = categoriser.of(el, device);
    std::size_t c = 0;
    while (c < cats.size() && (cats[c].category != p.category.category || cats[c].name != p.category.name))
      ++c;
    if (c == cats.size()) {
      cats.push_back(CategoryTotal{p.category.category, 0, 0, {}, p.category.name});
      cat_largest.push_back(-1);
    }
    cats[c].bytes += el.size;
    ++cats[c].count;
    if (el.size > cat_largest[c]) cat_largest[c] = el.size, cats[c].rule = p.category.rule;
    if (d.at_peak.size() < top) {
      p.where = user_frame(snap, el.frames);
      p.context = contexts.at(el.start, el.addr, el.end, el.frames);
      d.at_peak.push_back(std::move(p));
    }
  }
  // Ties in bytes keep the built-in order of the categories (then the user's names), as before user rules.
  std::stable_sort(cats.begin(), cats.end(), [](const CategoryTotal& a, const CategoryTotal& b) {
    return a.category != b.category ? a.category < b.category : a.name < b.name;
  });
  d.categories_at_peak = std::move(cats);
  std::stable_sort(d.categories_at_peak.begin(), d.categories_at_peak.end(),
                   [](const CategoryTotal& a, const CategoryTotal& b) { return a.bytes > b.bytes; });
  for (std::size_t i = trace.size(); i-- > 0;)
    if (trace[i].action == Action::Oom) {
      d.oom = OomPoint{static_cast<std::int64_t>(i), trace[i].size, static_cast<std::int64_t>(trace[i].addr),
                       trace[i].time_us, trace[i].frames};
      break;
    }
  d.state =
      allocator_state_at(snap, device, d.oom ? d.oom->index : static_cast<std::int64_t>(trace.size()) - 1);
  d.pools = pool_summaries(d.state);
  d.reserved_peak = reserved_peak(snap, device);
  d.windows = annotation_windows(snap, device, d.timeline);
  for (const TraceEntry& e : trace)
    d.segment_events += e.action == Action::SegmentAlloc || e.action == Action::SegmentFree ||
                        e.action == Action::SegmentMap || e.action == Action::SegmentUnmap;
  return d;
}

RecordingFacts recording_facts(const Snapshot& snap) {
  RecordingFacts f;
  bool all_single = true;
  for (const auto& trace : snap.device_traces) {
    if (trace.empty()) continue;
    f.history_recorded = true;
    all_single &= trace.size() == 1;
    for (const TraceEntry& e : trace) {
      f.trace_frames |= e.frames != 0;
      f.annotate_entries += e.action == Action::Annotate;
    }
  }
  f.single_entry_trace = f.history_recorded && all_single;
  for (const Block& b : snap.blocks) {
    f.block_frames |= b.frames != 0;
    if (b.state == BlockState::ActivePendingFree) ++f.pending_free_blocks, f.pending_free_bytes += b.size;
  }
  for (const Segment& s : snap.segments) {
    f.block_frames |= s.frames != 0;
    f.expandable_segments += s.is_expandable;
    f.private_pool_segments += s.pool_id.first != 0 || s.pool_id.second != 0;
  }
  f.compile_context_entries = snap.compile_context_entries;
  for (const EntryExtra& e : snap.entry_extras) {
    f.compiled_entries += e.compile_context != 0;
    f.user_metadata_entries += e.user_metadata != 0;
    f.forward_frames_entries += e.forward_frames != 0;
  }
  f.fx_frames = fx_frame_count(snap);
  return f;
}

}  // namespace

std::int64_t SnapshotReport::peak_bytes() const {
  std::int64_t p = 0;
  for (const DeviceAnalysis& d : devices) p = std::max(p, d.timeline.peak_bytes);
  return p;
}

SnapshotReport analyse_snapshot(const Snapshot& snap, std::size_t top) {
  return analyse_snapshot(snap, top, nullptr);
}

SnapshotReport analyse_snapshot(const Snapshot& snap, std::size_t top, const CategoryRules* rules) {
  SnapshotReport r;
  r.path = snap.path;
  r.file_size = snap.file_size;
  r.format = snap.format;
  r.segments = snap.segments.size();
  r.blocks = snap.blocks.size();
  for (const Block& b : snap.blocks) {
    if (b.active())
      ++r.active_blocks;
    else
      r.inactive_bytes += b.size;
  }
  r.reserved = snap.reserved_bytes();
  r.allocated = snap.allocated_bytes();
  r.requested_active = snap.requested_active_bytes();
  r.trace_entries = snap.trace_entries();
  r.frames = snap.frames.size();
  r.notes = snap.notes;
  r.recording = recording_facts(snap);
  const Categoriser categoriser(snap, rules);
  for (std::int64_t dev : snap.devices()) r.devices.push_back(analyse_device(snap, categoriser, dev, top));
  r.diagnosis = diagnose_snapshot(snap, r);
  return r;
}

}  // namespace oomscope::snapshot
