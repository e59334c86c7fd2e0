#include "core/snapshot/snapshot_text.h"

#include <algorithm>
#include <cstdio>

#include "core/util/bytes.h"
#include "core/util/columns.h"
#include "core/util/safe_text.h"

namespace oomscope::snapshot {

namespace {

std::string b(std::int64_t v) { return format_bytes(v); }
std::string n(std::size_t v) { return format_bytes_exact(static_cast<std::int64_t>(v)); }
std::string secs(std::int64_t us) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(us) / 1e6);
  return buf;
}
std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
  return buf;
}
double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string context_line(const PeakAllocation& p) { return p.context.empty() ? "" : p.context.text(); }

void write_state(std::ostream& o, const DeviceAnalysis& d) {
  const AllocatorState& s = d.state;
  std::int64_t whole = 0, largest_hole = 0;
  std::size_t whole_count = 0, holed = 0;
  for (const StateSegment& seg : s.segments) {
    if (seg.blocks.empty()) {
      whole += seg.free_bytes;
      ++whole_count;
    } else if (seg.free_bytes > 0) {
      ++holed;
      largest_hole = std::max(largest_hole, seg.largest_free);
    }
  }
  o << "  allocator state at " << (d.oom ? "the OOM" : "the snapshot") << ": " << n(s.segments.size())
    << (s.segments.size() == 1 ? " segment" : " segments") << ", reserved " << b(s.reserved) << ", allocated "
    << b(s.active_allocated_bytes) << " (requested " << b(s.active_requested_bytes) << ") in "
    << n(s.active_allocated_blocks) << (s.active_allocated_blocks == 1 ? " block" : " blocks")
    << ", free in cache " << b(s.free_bytes) << " (" << b(whole) << " in " << n(whole_count)
    << (whole_count == 1 ? " wholly free segment, " : " wholly free segments, ") << b(s.free_bytes - whole)
    << " in holes inside " << n(holed) << (holed == 1 ? " segment" : " segments") << " with live blocks";
  if (holed > 0) o << ", largest hole " << b(largest_hole);
  o << "), rounding waste " << b(s.rounding_waste) << " [measured]\n";
  if (s.pending_free_blocks > 0)
    o << "  pending free: " << b(s.pending_free_bytes) << " in " << n(s.pending_free_blocks)
      << (s.pending_free_blocks == 1 ? " block" : " blocks")
      << " freed by the program but waiting on a stream event (record_stream) before the allocator can reuse "
         "them; they sit in "
      << n(s.pending_free_segments) << (s.pending_free_segments == 1 ? " segment" : " segments") << ", "
      << n(s.pinned_by_pending) << " of them held by nothing else [measured]\n";
  if (has_private_pools(d.pools) || (d.pools.size() == 1 && !d.pools.front().known) || d.pools.size() > 1) {
    o << "  by pool (a private pool's free blocks serve only allocations made into that pool) [measured]:\n";
    for (const PoolSummary& p : d.pools) {
      o << "    " << pool_name(p) << ": " << n(p.segments) << (p.segments == 1 ? " segment" : " segments");
      if (p.expandable_segments) o << " (" << n(p.expandable_segments) << " expandable)";
      o << ", reserved " << b(p.reserved) << " (" << pct(share(p.reserved, s.reserved)) << "), allocated "
        << b(p.allocated) << " in " << n(p.allocated_blocks) << " blocks";
      if (p.pending_free_blocks) o << ", pending free " << b(p.pending_free);
      o << ", free " << b(p.free) << ", largest free block " << b(p.largest_free) << "\n";
    }
  }
}

void write_windows(std::ostream& o, const DeviceAnalysis& d, std::size_t top) {
  const AnnotationWindows& w = d.windows;
  if (w.windows.empty()) return;
  o << "  external_annotations: " << n(w.windows.size()) << " record_function windows";
  if (w.unpaired_ends) o << ", " << n(w.unpaired_ends) << " END without a START";
  o << " [read]\n";
  if (!w.trace_has_time) {
    o << "    the trace entries have no time_us, so the windows cannot be placed on the trace\n";
    return;
  }
  o << "  active memory inside each window, in START order [derived]:\n";
  const std::int64_t t0 = d.first_time_us;
  for (std::size_t i = 0; i < w.windows.size() && i < top; ++i) {
    const AnnotationWindow& x = w.windows[i];
    o << "    " << pad_right(terminal_safe(x.name), 44) << " " << secs(x.start_us - t0) << " .. "
      << (x.end_us >= 0 ? secs(x.end_us - t0) : std::string("(no END)"));
    if (x.first_index < 0)
      o << ": no trace entry inside (active memory " << b(x.bytes_at_start) << " throughout)\n";
    else
      o << ": entries " << x.first_index << ".." << x.last_index << ", peak " << b(x.peak_bytes)
        << (x.peak_index >= 0 ? " at entry " + std::to_string(x.peak_index) : std::string(" (at its start)"))
        << ", start " << b(x.bytes_at_start) << ", end " << b(x.bytes_at_end) << "\n";
  }
  if (w.windows.size() > top) o << "    ... " << n(w.windows.size() - top) << " more\n";
  if (d.timeline.peak_index >= 0) {
    std::string chain;
    for (const AnnotationWindow& x : w.windows)
      if (x.first_index >= 0 && x.first_index <= d.timeline.peak_index &&
          d.timeline.peak_index <= x.last_index)
        chain += (chain.empty() ? "" : " > ") + terminal_safe(x.name);
    o << "  the active-memory peak (entry " << d.timeline.peak_index << ") falls "
      << (chain.empty() ? std::string("outside every window") : "inside " + chain) << " [derived]\n";
  }
}

void write_device(std::ostream& o, const DeviceAnalysis& d, std::size_t top) {
  const Timeline& t = d.timeline;
  o << "\nDEVICE " << d.device << "\n";
  o << "  trace: " << n(d.trace_entries) << (d.trace_entries == 1 ? " entry" : " entries");
  if (d.first_time_us >= 0 && d.last_time_us >= d.first_time_us)
    o << " over " << secs(d.last_time_us - d.first_time_us);
  o << " [read]\n";
  if (d.trace_entries == 0) {
    o << "  no trace for this device (memory history was not recorded): the figures below are the state "
         "when the snapshot was taken; the peak over time, the order of allocations and any OOM are not in "
         "this file\n";
    o << "  active memory at the snapshot " << b(t.peak_bytes) << " (" << format_bytes_exact(t.peak_bytes)
      << " bytes, requested by live blocks) [read]\n";
    o << "  reserved at the snapshot " << b(d.reserved_peak) << " [read]\n";
  } else {
    o << "  active-memory peak " << b(t.peak_bytes) << " (" << format_bytes_exact(t.peak_bytes) << " bytes) ";
    if (t.peak_index >= 0)
      o << "at trace entry " << t.peak_index;
    else
      o << "at the start of the trace (no later entry is higher)";
    o << "; start " << b(t.initial_bytes) << ", end " << b(t.final_bytes) << " [derived]\n";
    o << "  reserved peak " << b(d.reserved_peak)
      << (d.segment_events == 0 ? " (no segment entries in the trace: reserved did not change)" : "")
      << " [derived]\n";
    o << "  allocated before the trace: " << n(t.ghosts) << " live blocks (" << b(t.ghost_bytes) << "), "
      << n(t.unmatched_frees) << (t.unmatched_frees == 1 ? " free" : " frees") << " without an alloc ("
      << b(t.unmatched_free_bytes) << "); " << n(t.never_freed)
      << (t.never_freed == 1 ? " allocation" : " allocations") << " in the trace never freed [measured]\n";
    if (d.oom)
      o << "  OOM at trace entry " << d.oom->index << ": requested " << b(d.oom->requested)
        << ", device free " << b(d.oom->device_free) << " [read]\n";
    else
      o << "  OOM: no 'oom' entry in the trace [read]\n";
  }
  write_state(o, d);
  write_windows(o, d, top);
  if (!d.categories_at_peak.empty()) {
    o << "  " << (d.trace_entries == 0 ? "live at the snapshot" : "at the peak")
      << " by category (guessed from stacks) [derived]:\n";
    for (const CategoryTotal& c : d.categories_at_peak)
      o << "    " << pad_right(c.label(), 16) << pad_right(b(c.bytes), 11) << pad_right("x" + n(c.count), 8)
        << "rule: " << c.rule << "\n";
  }
  o << "  live at the " << (d.trace_entries == 0 ? "snapshot" : "peak") << ", largest first [derived]:\n";
  for (std::size_t i = 0; i < d.at_peak.size() && i < top; ++i) {
    const PeakAllocation& p = d.at_peak[i];
    o << "    " << pad_right(b(p.bytes), 11)
      << pad_right(hex(p.addr) + ' ', 16)  // an address of 2^63 and above: 18 chars
      << pad_right(p.ghost             ? "before trace"
                   : p.alloc_index < 0 ? "before trace"
                                       : "entry " + std::to_string(p.alloc_index),
                   14)
      << pad_right(to_string(p.category.category), 16) << (p.where.empty() ? "(no stack)" : p.where) << "\n";
    if (const std::string c = context_line(p); !c.empty()) o << "        " << c << "\n";
  }
  std::size_t live = 0;
  for (const TimelineElement& e : t.elements) live += e.live_at(t.peak_index);
  if (live > d.at_peak.size() && live > top)
    o << "    ... " << n(live - std::min(top, d.at_peak.size())) << " more\n";
}

void write_recording(std::ostream& o, const Snapshot& snap, const SnapshotReport& r) {
  const RecordingFacts& f = r.recording;
  if (!f.history_recorded)
    o << "recording: no trace entries on any device: torch.cuda.memory._record_memory_history() was off "
         "(or enabled=None) when the snapshot was taken, so only the state at that moment is known\n";
  else if (f.single_entry_trace)
    o << "recording: every trace holds a single entry, as a ring buffer of one entry leaves "
         "(_record_memory_history(enabled='state'), or the legacy API's default), so the history before the "
         "snapshot is not known\n";
  if (!f.block_frames && !f.trace_frames)
    o << "recording: no stack frames anywhere (context=None), so no allocation can be traced to code\n";
  if (f.compile_context_entries)
    o << "compile_context: " << n(f.compile_context_entries) << " trace entries carry it, "
      << n(f.compiled_entries) << " inside a torch.compile region (the rest 'N/A') [read]\n";
  if (f.user_metadata_entries)
    o << "user_metadata: " << n(f.user_metadata_entries)
      << " trace entries (_set_memory_metadata / annotate) [read]\n";
  if (f.annotate_entries)
    o << "annotate entries: " << n(f.annotate_entries) << " (_annotate_memory) [read]\n";
  if (f.forward_frames_entries)
    o << "forward_frames: " << n(f.forward_frames_entries)
      << " trace entries carry the forward-pass stack of a backward allocation [read]\n";
  if (f.fx_frames)
    o << "FX frames: " << n(f.fx_frames) << " frames name an FX node (augment_with_fx_traces=True) [read]\n";
  if (f.expandable_segments)
    o << "expandable segments: " << n(f.expandable_segments)
      << " (expandable_segments:True: one range per stream and pool that grows by mapped pages) [read]\n";
  if (f.private_pool_segments)
    o << "private pools: " << n(f.private_pool_segments)
      << " segments belong to CUDA-graph or MemPool pools, not the default pool [read]\n";
  if (f.pending_free_blocks)
    o << "pending free: " << n(f.pending_free_blocks) << " blocks (" << b(f.pending_free_bytes)
      << ") are active_pending_free, not in 'allocated' [read]\n";
  if (snap.host.present) {
    o << "pinned host memory (host_segments): " << n(snap.host.segments) << " segments, reserved "
      << b(snap.host.reserved) << ", allocated " << b(snap.host.allocated) << ", " << n(snap.host.blocks)
      << " blocks (" << n(snap.host.active_blocks) << " active); host_traces: " << n(snap.host.trace_entries)
      << " entries [read]";
    if (snap.host.unreadable) o << "; " << n(snap.host.unreadable) << " items of another shape were skipped";
    o << "\n";
  }
}

}  // namespace

void write_diagnosis_text(std::ostream& o, const std::vector<analysis::DiagnosisLine>& lines) {
  o << "\nDIAGNOSIS\n";
  if (lines.empty()) o << "  nothing to report\n";
  for (const analysis::DiagnosisLine& l : lines) {
    o << "  [" << analysis::to_string(l.provenance) << "] " << l.finding << "\n";
    if (!l.cause.empty()) o << "      cause: " << l.cause << "\n";
    for (const analysis::Fix& f : l.fixes) {
      o << "      fix: " << f.action << "\n           saving ";
      o << (f.saving_bytes ? "~" + b(*f.saving_bytes) + " [derived]" : std::string("-"));
      if (!f.saving_note.empty()) o << " (" << f.saving_note << ")";
      o << "; cost: " << f.cost << "\n";
    }
    if (!l.confirm.empty()) o << "      confirm: " << l.confirm << "\n";
  }
}

void write_snapshot_text(std::ostream& o, const Snapshot& snap, const SnapshotReport& r, std::size_t top) {
  o << "== " << r.path << "\n";
  o << "PyTorch allocator snapshot, " << describe(r.format) << ", ";
  if (snap.protocol > 0)
    o << "pickle protocol " << snap.protocol;
  else
    o << "written as JSON";
  o << ", file " << b(static_cast<std::int64_t>(r.file_size)) << "\n";
  std::size_t large = 0;
  for (const Segment& s : snap.segments) large += s.large;
  o << "segments " << n(r.segments) << " (" << n(large) << " large, " << n(r.segments - large)
    << " small), blocks " << n(r.blocks) << " (" << n(r.active_blocks) << " active, "
    << n(r.blocks - r.active_blocks) << " inactive) [read]\n";
  o << "reserved " << b(r.reserved) << " (" << format_bytes_exact(r.reserved) << " bytes), allocated "
    << b(r.allocated) << " (" << format_bytes_exact(r.allocated) << "), requested by live blocks "
    << b(r.requested_active) << ", cached free " << b(r.inactive_bytes) << " [read]\n";
  o << "trace entries " << n(r.trace_entries) << " on " << snap.device_traces.size()
    << " device list(s); distinct frames " << n(r.frames) << "\n";
  if (snap.has_allocator_settings) {
    o << "allocator settings:";
    for (const auto& [k, v] : snap.allocator_settings)
      if (k != "roundup_power2_divisions") o << " " << k << "=" << v;
    o << "\n";
  }
  if (!snap.annotations.empty())
    o << "annotations: " << n(snap.annotations.size()) << " (record_function START/END)\n";
  write_recording(o, snap, r);
  for (const std::string& note : r.notes) o << "note: " << note << "\n";
  if (r.devices.empty()) o << "no device has segments or trace entries\n";
  for (const DeviceAnalysis& d : r.devices) write_device(o, d, top);
  write_diagnosis_text(o, r.diagnosis);
}

}  // namespace oomscope::snapshot
