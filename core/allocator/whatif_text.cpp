#include "core/allocator/whatif_text.h"

#include <cstdio>

#include "core/util/bytes.h"

namespace oomscope::allocator {

namespace {

std::string bytes(std::uint64_t n) { return format_bytes(n); }

std::string capacity_text(std::uint64_t c) { return c == kNoLimit ? "unlimited" : bytes(c); }

std::string count(std::size_t n, const char* one, const char* many) {
  return format_bytes_exact(static_cast<std::int64_t>(n)) + " " + (n == 1 ? one : many);
}

// Up to three frames of the stack, innermost first, skipping frames without a file.
std::string stack_text(const snapshot::Snapshot& snap, snapshot::FramesId id) {
  std::string out;
  int shown = 0;
  for (std::uint32_t f : snap.frames_of(id)) {
    if (f >= snap.frames.size()) continue;
    const snapshot::Frame& fr = snap.frames[f];
    if (fr.filename.empty() || fr.filename == "??" || fr.line <= 0) continue;
    out += "      " + fr.name + " (" + fr.filename + ":" + std::to_string(fr.line) + ")\n";
    if (++shown == 3) break;
  }
  return out.empty() ? "      (no stack recorded)\n" : out;
}

std::string oom_line(const OomReport& o) {
  std::string s = "entry " + std::to_string(o.trace_index);
  if (o.time_us >= 0) s += " (time_us " + std::to_string(o.time_us) + ")";
  s += ", a request of " + bytes(o.detail.requested) + " (" + bytes(o.detail.alloc_size) + " to reserve)";
  return s;
}

std::string scenario_row(const Scenario& s) {
  const ReplayResult& r = s.result;
  char line[320];
  std::string oom = r.first_oom ? "entry " + std::to_string(r.first_oom->trace_index) : std::string("none");
  std::string saved = "-";
  if (s.saved_vs_recorded) {
    const std::int64_t v = *s.saved_vs_recorded;
    saved = v == 0  ? "0 B"
            : v > 0 ? bytes(static_cast<std::uint64_t>(v))
                    : "-" + bytes(static_cast<std::uint64_t>(-v));
  }
  std::snprintf(line, sizeof line, "  %-34s %10s %14s %15s %14s %12s\n", s.name.c_str(),
                capacity_text(r.capacity).c_str(), bytes(r.peak_reserved).c_str(),
                bytes(r.peak_allocated).c_str(), oom.c_str(), saved.c_str());
  return line;
}

}  // namespace

std::string whatif_text(const WhatIfResult& w, const snapshot::Snapshot& snap) {
  const ReplayResult& rec = w.recorded.result;
  std::string out = "What-if replay of " + w.path + ", device " + std::to_string(w.device) + "\n";
  out += "  trace: " + count(w.trace_entries, "entry", "entries") + " [read]\n";
  out += "  settings: " +
         std::string(w.settings_recorded ? "as recorded in allocator_settings [read]"
                                         : "PyTorch's defaults (the file has no allocator_settings)") +
         ": ";
  bool first = true;
  for (const auto& [k, v] : setting_values(w.recorded_config)) {
    out += first ? "" : ", ";
    out += k;
    out += " ";
    out += v;
    first = false;
  }
  out += "\n  start: ";
  if (rec.start_reserved == 0)
    out += "an empty device (no segment existed before the trace)\n";
  else
    out += bytes(rec.start_reserved) + " reserved, " + bytes(rec.start_allocated) +
           " allocated, the snapshot with the trace undone [derived]\n";
  out += "  capacity: " + capacity_text(w.capacity.value_or(kNoLimit));
  if (w.capacity_from_oom)
    out += " (the recorded oom entry: reserved after the retry's release plus device_free) [derived]";
  else if (!w.capacity)
    out += " (no capacity given: the replay may reserve as much as it asks for)";
  out += "\n\n";

  if (const auto& v = rec.validation) {
    out += "Validation: the recorded settings replayed against the recording [derived]\n";
    out += "  segment events matched in order: " + std::to_string(v->segment_events_matched) + " of " +
           std::to_string(v->segment_events_recorded) + " recorded (" +
           std::to_string(v->segment_events_replayed) + " replayed)\n";
    out += "  allocations at the recorded address: " + std::to_string(v->allocs_at_recorded_address) +
           " of " + std::to_string(v->allocs) + "\n";
    out += "  final segments: " + std::to_string(v->final_segments_replayed.size()) + " replayed, " +
           std::to_string(v->final_segments_recorded.size()) + " in the snapshot; block layout " +
           (v->final_layout_matched ? "identical" : "different") + "\n";
    if (!v->checked) {
      out +=
          "  The trace holds no allocation or segment event, so the model could not be checked: the figures\n"
          "  below are the model's replay, not predictions.\n";
    } else if (v->matched) {
      out += "  The model reproduces what the allocator recorded: the scenarios below are predictions.\n";
    } else {
      out += "  The model does not reproduce the recording";
      if (v->first_divergence)
        out += (v->first_divergence->trace_index >= 0 ? " (first divergence: " : " (") +
               v->first_divergence->what + ")";
      out += ".\n  The figures below are the model's replay, not predictions of what PyTorch would do.\n";
    }
    for (const std::string& u : v->unexplained) out += "  cannot explain: " + u + "\n";
    out += "\n";
  }

  out += "Scenarios [derived]\n";
  char head[320];
  std::snprintf(head, sizeof head, "  %-34s %10s %14s %15s %14s %12s\n", "settings", "capacity",
                "peak reserved", "peak allocated", "first OOM", "saved");
  out += head;
  out += scenario_row(w.recorded);
  for (const Scenario& s : w.scenarios) out += scenario_row(s);
  out +=
      "  (saved: the recorded run's peak reserved minus the scenario's; peak allocated counts blocks as "
      "rounded)\n";
  if (w.standard) {
    if (w.best)
      out += "  Lowest peak reserved: " + w.scenarios[*w.best].name + ", " +
             bytes(w.scenarios[*w.best].result.peak_reserved) + " instead of " + bytes(rec.peak_reserved) +
             "\n";
    else if (!rec.first_oom)
      out += "  No single setting tried lowers the peak reserved of " + bytes(rec.peak_reserved) + "\n";
  }
  for (const Scenario& s : w.scenarios) {
    if (!s.result.first_oom) continue;
    out += "\n" + s.name + " runs out of memory at " + oom_line(*s.result.first_oom) + ":\n" +
           stack_text(snap, s.result.first_oom->frames);
  }
  if (!w.capacity_searches.empty()) {
    out += "\nSmallest capacity without an OOM (bisection in 2 MiB steps) [derived]\n";
    for (const CapacitySearch& c : w.capacity_searches)
      out += "  " + c.settings + ": " +
             (c.capacity ? bytes(*c.capacity) : "none up to " + bytes(c.searched_up_to)) + " (" +
             std::to_string(c.replays + 1) + (c.replays == 0 ? " replay)\n" : " replays)\n");
  }
  if (rec.first_oom && rec.first_oom->recorded) {
    const OomReport& o = *rec.first_oom;
    out += "\nThe recorded out-of-memory error, as the allocator saw it [derived]\n";
    out += "  " + oom_line(o) + " in the " + (o.detail.small_pool ? "small" : "large") + " pool\n";
    out += "  largest free block left in that pool for the stream after the retry: " +
           bytes(o.detail.largest_free_in_pool) + "\n";
    out += "  cached free bytes the retry released: " + bytes(o.detail.released_by_retry) + " of " +
           bytes(o.detail.cached_free) + " cached\n";
    out += "  CUDA still had " + bytes(o.device_free) + " free [read]\n";
    out += stack_text(snap, o.frames);
    std::string avoided;
    for (const Scenario& s : w.scenarios)
      if (!s.result.first_oom && s.result.replayed == s.result.entries)
        avoided += (avoided.empty() ? "" : ", ") + s.name;
    out += avoided.empty() ? "  No single setting tried avoids it at this capacity.\n"
                           : "  Avoided at this capacity by: " + avoided + "\n";
  }
  if (!w.notes.empty()) {
    out += "\nNotes\n";
    for (const std::string& n : w.notes) out += "  " + n + "\n";
  }
  return out;
}

}  // namespace oomscope::allocator
