#include "core/snapshot/snapshot_json.h"

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
                     {"frames", frames_json(snap, p.frames)}});
    nlohmann::json cats = nlohmann::json::array();
    for (const CategoryTotal& c : d.categories_at_peak)
      cats.push_back({{"category", c.label()}, {"bytes", c.bytes}, {"count", c.count}, {"rule", c.rule}});
    const AllocatorState& s = d.state;
    devices.push_back({{"device", d.device},
                       {"live_at_peak", top},
                       {"categories_at_peak", cats},
                       {"allocator_state",
                        {{"at", d.oom ? "oom" : "snapshot"},
                         {"index", s.index},
                         {"segments", s.segments.size()},
                         {"reserved_bytes", s.reserved},
                         {"allocated_bytes", s.allocated},
                         {"live_blocks", s.live_blocks},
                         {"free_bytes", s.free_bytes},
                         {"largest_free_bytes", s.largest_free},
                         {"fragmentation", s.fragmentation()},
                         {"rounding_waste_bytes", s.rounding_waste}}}});
  }
  j["devices"] = devices;
  j["diagnosis"] = diagnosis_json(r.diagnosis);
  return j;
}

nlohmann::json diagnosis_lines_json(const std::vector<analysis::DiagnosisLine>& lines) {
  return diagnosis_json(lines);
}

}  // namespace oomscope::snapshot
