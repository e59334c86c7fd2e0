#include "core/snapshot/snapshot_text.h"

#include <cstdio>

#include "core/util/bytes.h"

namespace oomscope::snapshot {

namespace {

std::string b(std::int64_t v) { return format_bytes(v); }
std::string n(std::size_t v) { return format_bytes_exact(static_cast<std::int64_t>(v)); }
std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
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

void write_device(std::ostream& o, const DeviceAnalysis& d, std::size_t top) {
  const Timeline& t = d.timeline;
  o << "\nDEVICE " << d.device << "\n";
  o << "  trace: " << n(d.trace_entries) << (d.trace_entries == 1 ? " entry" : " entries");
  if (d.first_time_us >= 0 && d.last_time_us >= d.first_time_us)
    o << " over " << secs(d.last_time_us - d.first_time_us);
  o << " [read]\n";
  o << "  active-memory peak " << b(t.peak_bytes) << " (" << format_bytes_exact(t.peak_bytes) << " bytes) ";
  if (t.peak_index >= 0)
    o << "at trace entry " << t.peak_index;
  else
    o << "at the start of the trace";
  o << "; start " << b(t.initial_bytes) << ", end " << b(t.final_bytes) << " [derived]\n";
  o << "  reserved peak " << b(d.reserved_peak) << " [derived]\n";
  if (d.trace_entries > 0)
    o << "  allocated before the trace: " << n(t.ghosts) << " live blocks (" << b(t.ghost_bytes) << "), "
      << n(t.unmatched_frees) << (t.unmatched_frees == 1 ? " free" : " frees") << " without an alloc ("
      << b(t.unmatched_free_bytes) << "); " << n(t.never_freed)
      << " allocations in the trace never freed [measured]\n";
  if (d.oom)
    o << "  OOM at trace entry " << d.oom->index << ": requested " << b(d.oom->requested) << ", device free "
      << b(d.oom->device_free) << " [read]\n";
  else
    o << "  OOM: no 'oom' entry in the trace [read]\n";
  const AllocatorState& s = d.state;
  o << "  allocator state at " << (d.oom ? "the OOM" : "the snapshot") << ": " << n(s.segments.size())
    << " segments, reserved " << b(s.reserved) << ", allocated " << b(s.allocated) << " in "
    << n(s.live_blocks) << " blocks, free in cache " << b(s.free_bytes) << ", largest free block "
    << b(s.largest_free) << ", fragmentation " << pct(s.fragmentation()) << ", rounding waste "
    << b(s.rounding_waste) << " [measured]\n";
  if (!d.categories_at_peak.empty()) {
    o << "  at the peak by category (guessed from stacks) [derived]:\n";
    for (const CategoryTotal& c : d.categories_at_peak)
      o << "    " << pad(c.label(), 16) << pad(b(c.bytes), 11) << pad("x" + n(c.count), 8)
        << "rule: " << c.rule << "\n";
  }
  o << "  live at the peak, largest first [derived]:\n";
  for (std::size_t i = 0; i < d.at_peak.size() && i < top; ++i) {
    const PeakAllocation& p = d.at_peak[i];
    o << "    " << pad(b(p.bytes), 11) << pad(hex(p.addr), 16)
      << pad(p.ghost             ? "before trace"
             : p.alloc_index < 0 ? "before trace"
                                 : "entry " + std::to_string(p.alloc_index),
             14)
      << pad(to_string(p.category.category), 16) << (p.where.empty() ? "(no stack)" : p.where) << "\n";
  }
  std::size_t live = 0;
  for (const TimelineElement& e : t.elements) live += e.live_at(t.peak_index);
  if (live > d.at_peak.size() && live > top)
    o << "    ... " << n(live - std::min(top, d.at_peak.size())) << " more\n";
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
  for (const std::string& note : r.notes) o << "note: " << note << "\n";
  if (r.devices.empty()) o << "no device has segments or trace entries\n";
  for (const DeviceAnalysis& d : r.devices) write_device(o, d, top);
  write_diagnosis_text(o, r.diagnosis);
}

}  // namespace oomscope::snapshot
