#include "core/snapshot/snapshot_json.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/snapshot/categories.h"

namespace oomscope::snapshot {

namespace {

const char* format_id(SnapshotFormat f) {
  switch (f) {
    case SnapshotFormat::V2_0:
      return "2.0";
    case SnapshotFormat::V2_1:
      return "2.1";
    case SnapshotFormat::V2_3:
      return "2.3";
    case SnapshotFormat::SegmentsOnly:
      return "segments-only";
  }
  return "?";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The top-level pieces of "k: v, k: v" (commas inside quotes or braces do not split).
std::vector<std::string_view> split_items(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '\'') quoted = !quoted;
    if (quoted) continue;
    if (ch == '{') ++depth;
    if (ch == '}') --depth;
    if (ch == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (start < s.size()) out.push_back(trim(s.substr(start)));
  return out;
}

// An allocator_settings value as the builder wrote it (Python's repr: True, -1, 0.0, 'text', {'1': 0})
// back as a JSON value of its type.
nlohmann::json repr_json(std::string_view v, int depth = 0) {
  v = trim(v);
  if (v == "True") return true;
  if (v == "False") return false;
  if (v == "None") return nullptr;
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') return std::string(v.substr(1, v.size() - 2));
  if (v.size() >= 2 && v.front() == '{' && v.back() == '}' && depth < 2) {
    nlohmann::json obj = nlohmann::json::object();
    for (std::string_view item : split_items(v.substr(1, v.size() - 2))) {
      const auto colon = item.find(": ");
      if (colon == std::string_view::npos) return std::string(v);
      const nlohmann::json key = repr_json(item.substr(0, colon), depth + 1);
      obj[key.is_string() ? key.get<std::string>() : key.dump()] =
          repr_json(item.substr(colon + 2), depth + 1);
    }
    return obj;
  }
  std::int64_t i = 0;
  if (auto r = std::from_chars(v.data(), v.data() + v.size(), i);
      r.ec == std::errc{} && r.ptr == v.data() + v.size())
    return i;
  const std::string text(v);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size()) return d;
  return text;
}

nlohmann::json frames_json(const Snapshot& snap, FramesId id, std::size_t max = 8) {
  nlohmann::json out = nlohmann::json::array();
  for (std::uint32_t f : snap.frames_of(id)) {
    if (out.size() >= max) break;
    const Frame& fr = snap.frames[f];
    out.push_back({{"filename", fr.filename}, {"line", fr.line}, {"name", fr.name}});
  }
  return out;
}

nlohmann::json context_json(const EntryContext& c) {
  return {{"compile_context", c.compile_context},
          {"user_metadata", c.user_metadata},
          {"annotations", c.annotations},
          {"forward_where", c.forward_where},
          {"fx", c.fx}};
}

nlohmann::json diagnosis_json(const std::vector<analysis::DiagnosisLine>& lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : lines) {
    nlohmann::json fixes = nlohmann::json::array();
    for (const auto& f : l.fixes)
      fixes.push_back(
          {{"action", f.action},
           {"saving_bytes", f.saving_bytes ? nlohmann::json(*f.saving_bytes) : nlohmann::json(nullptr)},
           {"saving_note", f.saving_note},
           {"cost", f.cost}});
    out.push_back({{"rule", l.rule},
                   {"provenance", analysis::to_string(l.provenance)},
                   {"finding", l.finding},
                   {"cause", l.cause},
                   {"fixes", fixes},
                   {"confirm", l.confirm}});
  }
  return out;
}

nlohmann::json state_json(const DeviceAnalysis& d) {
  const AllocatorState& s = d.state;
  std::int64_t whole = 0, largest_hole = 0;
  std::size_t whole_count = 0;
  for (const StateSegment& seg : s.segments) {
    if (seg.blocks.empty())
      whole += seg.free_bytes, ++whole_count;
    else
      largest_hole = std::max(largest_hole, seg.largest_free);
  }
  nlohmann::json pools = nlohmann::json::array();
  for (const PoolSummary& p : d.pools)
    pools.push_back(
        {{"pool_id", p.known ? nlohmann::json::array({p.id.first, p.id.second}) : nlohmann::json(nullptr)},
         {"name", pool_name(p)},
         {"private", p.known && (p.id.first != 0 || p.id.second != 0)},
         {"segments", p.segments},
         {"expandable_segments", p.expandable_segments},
         {"reserved_bytes", p.reserved},
         {"allocated_bytes", p.allocated},
         {"requested_bytes", p.requested},
         {"allocated_blocks", p.allocated_blocks},
         {"pending_free_bytes", p.pending_free},
         {"pending_free_blocks", p.pending_free_blocks},
         {"free_bytes", p.free},
         {"largest_free_bytes", p.largest_free},
         {"wholly_free_segments", p.whole_free_segments},
         {"wholly_free_bytes", p.whole_free}});
  return {{"at", d.oom ? "oom" : "snapshot"},
          {"index", s.index},
          {"segments", s.segments.size()},
          {"reserved_bytes", s.reserved},
          {"allocated_bytes", s.active_allocated_bytes},
          {"requested_bytes", s.active_requested_bytes},
          {"allocated_blocks", s.active_allocated_blocks},
          {"live_requested_bytes", s.allocated},
          {"live_blocks", s.live_blocks},
          {"pending_free_bytes", s.pending_free_bytes},
          {"pending_free_blocks", s.pending_free_blocks},
          {"pending_free_segments", s.pending_free_segments},
          {"segments_held_only_by_pending_free", s.pinned_by_pending},
          {"free_bytes", s.free_bytes},
          {"wholly_free_segments", whole_count},
          {"wholly_free_bytes", whole},
          {"hole_bytes", s.free_bytes - whole},
          {"largest_hole_bytes", largest_hole},
          {"largest_free_bytes", s.largest_free},
          {"fragmentation", s.fragmentation()},
          {"rounding_waste_bytes", s.rounding_waste},
          {"pools", pools}};
}

nlohmann::json windows_json(const AnnotationWindows& w) {
  nlohmann::json out = nlohmann::json::array();
  auto opt = [](std::int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (const AnnotationWindow& x : w.windows)
    out.push_back(
        {{"name", x.name},
         {"kind", x.kind == WindowKind::Step        ? "step"
                  : x.kind == WindowKind::Optimizer ? "optimizer"
                                                    : "other"},
         {"start_us", x.start_us},
         {"end_us", opt(x.end_us)},
         {"first_index", opt(x.first_index)},
         {"last_index", opt(x.last_index)},
         {"peak_bytes", w.trace_has_time ? nlohmann::json(x.peak_bytes) : nlohmann::json(nullptr)},
         {"peak_index", opt(x.peak_index)},
         {"bytes_at_start", w.trace_has_time ? nlohmann::json(x.bytes_at_start) : nlohmann::json(nullptr)},
         {"bytes_at_end", w.trace_has_time ? nlohmann::json(x.bytes_at_end) : nlohmann::json(nullptr)}});
  return out;
}

nlohmann::json recording_json(const Snapshot& snap, const RecordingFacts& f) {
  nlohmann::json host = nullptr;
  if (snap.host.present)
    host = {{"segments", snap.host.segments},           {"reserved_bytes", snap.host.reserved},
            {"allocated_bytes", snap.host.allocated},   {"blocks", snap.host.blocks},
            {"active_blocks", snap.host.active_blocks}, {"trace_entries", snap.host.trace_entries},
            {"unreadable_items", snap.host.unreadable}};
  return {{"history_recorded", f.history_recorded},
          {"single_entry_trace", f.single_entry_trace},
          {"block_frames", f.block_frames},
          {"trace_frames", f.trace_frames},
          {"compile_context_entries", f.compile_context_entries},
          {"compiled_region_entries", f.compiled_entries},
          {"user_metadata_entries", f.user_metadata_entries},
          {"annotate_entries", f.annotate_entries},
          {"forward_frames_entries", f.forward_frames_entries},
          {"fx_frames", f.fx_frames},
          {"expandable_segments", f.expandable_segments},
          {"private_pool_segments", f.private_pool_segments},
          {"pending_free_blocks", f.pending_free_blocks},
          {"pending_free_bytes", f.pending_free_bytes},
          {"host_memory", host}};
}

}  // namespace

nlohmann::json snapshot_summary_json(const Snapshot& snap, const SnapshotReport& r) {
  std::size_t large = 0;
  for (const Segment& s : snap.segments) large += s.large;
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceAnalysis& d : r.devices) {
    nlohmann::json dev = {
        {"device", d.device},
        {"trace_entries", d.trace_entries},
        {"peak_bytes", d.timeline.peak_bytes},
        {"peak_index", d.timeline.peak_index},
        {"start_bytes", d.timeline.initial_bytes},
        {"end_bytes", d.timeline.final_bytes},
        {"reserved_peak_bytes", d.reserved_peak},
        {"ghost_blocks", d.timeline.ghosts},
        {"ghost_bytes", d.timeline.ghost_bytes},
        {"unmatched_frees", d.timeline.unmatched_frees},
        {"first_time_us", d.first_time_us >= 0 ? nlohmann::json(d.first_time_us) : nlohmann::json(nullptr)},
        {"last_time_us", d.last_time_us >= 0 ? nlohmann::json(d.last_time_us) : nlohmann::json(nullptr)}};
    if (d.oom)
      dev["oom"] = {{"index", d.oom->index},
                    {"requested_bytes", d.oom->requested},
                    {"device_free_bytes", d.oom->device_free}};
    else
      dev["oom"] = nullptr;
    devices.push_back(std::move(dev));
  }
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : snap.allocator_settings) settings[k] = repr_json(v);
  return {{"format", format_id(snap.format)},
          {"pickle_protocol", snap.protocol > 0 ? nlohmann::json(snap.protocol) : nlohmann::json()},
          {"segments", snap.segments.size()},
          {"large_segments", large},
          {"small_segments", snap.segments.size() - large},
          {"blocks", r.blocks},
          {"active_blocks", r.active_blocks},
          {"inactive_blocks", r.blocks - r.active_blocks},
          {"reserved_bytes", r.reserved},
          {"allocated_bytes", r.allocated},
          {"requested_bytes", r.requested_active},
          {"inactive_bytes", r.inactive_bytes},
          {"trace_entries", r.trace_entries},
          {"device_trace_lists", snap.device_traces.size()},
          {"peak_bytes", r.peak_bytes()},
          {"distinct_frames", snap.frames.size()},
          {"annotations", snap.annotations.size()},
          {"allocator_settings", snap.has_allocator_settings ? settings : nlohmann::json(nullptr)},
          {"recording", recording_json(snap, r.recording)},
          {"devices", devices}};
}

nlohmann::json snapshot_report_json(const Snapshot& snap, const SnapshotReport& r) {
  nlohmann::json j = {{"file", r.path},
                      {"kind", "torch-snapshot"},
                      {"file_bytes", r.file_size},
                      {"snapshot", snapshot_summary_json(snap, r)}};
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceAnalysis& d : r.devices) {
    nlohmann::json top = nlohmann::json::array();
    for (const PeakAllocation& p : d.at_peak)
      top.push_back({{"bytes", p.bytes},
                     {"address", p.addr},
                     {"alloc_index", p.alloc_index},
                     {"before_trace", p.alloc_index < 0},
                     {"category", p.category.label()},
                     {"category_rule", p.category.rule},
                     {"where", p.where},
                     {"context", p.context.empty() ? nlohmann::json(nullptr) : context_json(p.context)},
                     {"frames", frames_json(snap, p.frames)}});
    nlohmann::json cats = nlohmann::json::array();
    for (const CategoryTotal& c : d.categories_at_peak)
      cats.push_back({{"category", c.label()}, {"bytes", c.bytes}, {"count", c.count}, {"rule", c.rule}});
    devices.push_back({{"device", d.device},
                       {"live_at_peak", top},
                       {"categories_at_peak", cats},
                       {"allocator_state", state_json(d)},
                       {"annotation_windows", windows_json(d.windows)}});
  }
  j["devices"] = devices;
  j["diagnosis"] = diagnosis_json(r.diagnosis);
  return j;
}

nlohmann::json diagnosis_lines_json(const std::vector<analysis::DiagnosisLine>& lines) {
  return diagnosis_json(lines);
}

}  // namespace oomscope::snapshot
