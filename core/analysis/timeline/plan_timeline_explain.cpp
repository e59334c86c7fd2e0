// The runtime side of the plan timeline: per execution, bytes in use at its start, the allocator's peak in
// its span, what was live at its start, and one line on why the runtime peak differs from the plan's.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "core/analysis/timeline/detail/plan_timeline_detail.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::analysis {

namespace {

using capture::MemoryEvent;
using capture::MemoryEventKind;

std::int64_t in_use_before_event(const MemoryEvent& e) {
  return e.kind == MemoryEventKind::Allocation ? e.bytes_in_use - e.allocation_bytes
                                               : e.bytes_in_use + e.allocation_bytes;
}

bool contains_lower(std::string_view text, std::string_view needle) {
  const auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(),
                              [](char a, char b) { return std::tolower((unsigned char)a) == b; });
  return it != text.end();
}

std::string signed_bytes(std::int64_t bytes) {
  return (bytes < 0 ? "-" : "+") + format_bytes(bytes < 0 ? -bytes : bytes);
}

std::string explanation(const ExecutionTimeline& x) {
  std::string s =
      signed_bytes(x.difference_bytes) + (x.difference_bytes < 0 ? " under" : " over") + " the plan";
  const std::int64_t beyond = x.in_use_at_start - x.plan_parameters_bytes;
  s += ": live at start " + format_bytes(x.in_use_at_start);
  if (x.plan_parameters_bytes > 0)
    s += ", " + signed_bytes(beyond) + " beyond its " + format_bytes(x.plan_parameters_bytes) +
         " of parameters";
  std::string parts;
  for (int k = 0; k < 4; ++k) {
    if (x.live_by_kind[k] <= 0) continue;
    if (!parts.empty()) parts += ", ";
    parts += std::string(to_string(LiveKind(k))) + " " + format_bytes(x.live_by_kind[k]);
  }
  if (!parts.empty()) s += " (" + parts + ")";
  s += "; during the execution " + signed_bytes(x.difference_bytes - beyond) + " against the plan's growth";
  if (x.reserved_at_peak > 0)
    s += "; reserved but not allocated at the peak " + format_bytes(x.reserved_at_peak);
  return s;
}

}  // namespace

const char* to_string(LiveKind kind) noexcept { return enum_name(kLiveKindNames, kind, "other"); }

LiveKind live_kind(const LiveGroup& g) {
  if (g.before_capture) return LiveKind::BeforeCapture;
  if (g.label.starts_with("outputs of ")) return LiveKind::EarlierOutputs;
  for (std::string_view needle : {"deviceput", "device_put", "transfer", "frompyval", "hosttodevice", "h2d"})
    if (contains_lower(g.label, needle)) return LiveKind::HostCopies;
  return LiveKind::Other;
}

void explain_executions(const PlanTimelineInput& in, PlanTimeline& timeline, std::stop_token stop) {
  // One sweep over the allocator's events in time order, keeping the live chunks (addr -> event index).
  std::unordered_map<std::uint64_t, std::size_t> live;
  LiveLabelCache names;  // each allocation named once, however many executions it outlives
  const auto& events = timeline.allocator_events;
  std::size_t next = 0;
  const std::size_t n = timeline.executions.size();
  for (std::size_t k = 0; k < n; ++k) {
    ExecutionTimeline& x = timeline.executions[k];
    if (stop.stop_requested()) throw Cancelled("plan timeline");
    if (!x.allocator || !timeline.allocator || *x.allocator != *timeline.allocator || events.empty()) {
      x.difference_bytes = 0;
      x.explanation = "no allocator events of this execution's allocator: the runtime peak is unknown";
      continue;
    }
    while (next < events.size() && in.memory[events[next]].time_ps < x.start_ps) {
      const MemoryEvent& e = in.memory[events[next]];
      if (e.kind == MemoryEventKind::Allocation)
        live[e.addr] = events[next];
      else
        live.erase(e.addr);
      ++next;
    }
    x.in_use_at_start =
        next > 0 ? in.memory[events[next - 1]].bytes_in_use : in_use_before_event(in.memory[events.front()]);
    x.runtime_peak_bytes = x.in_use_at_start;
    x.runtime_peak_time_ps = x.start_ps;
    for (std::size_t i = next; i < events.size() && in.memory[events[i]].time_ps <= x.end_ps; ++i) {
      const MemoryEvent& e = in.memory[events[i]];
      if (e.bytes_in_use > x.runtime_peak_bytes) {
        x.runtime_peak_bytes = e.bytes_in_use;
        x.runtime_peak_time_ps = e.time_ps;
        x.reserved_at_peak = e.bytes_reserved;
      }
    }
    x.difference_bytes = x.runtime_peak_bytes - x.planned_peak_bytes;
    if (in.host && (n <= in.max_grouped || k + 1 == n)) {
      x.grouped = true;
      std::vector<std::size_t> indices;
      indices.reserve(live.size());
      for (const auto& [addr, index] : live) indices.push_back(index);
      std::sort(indices.begin(), indices.end());
      x.live_at_start = group_live_by_host_event(in.memory, indices, in.all_executions, in.host_plane,
                                                 *in.host, x.in_use_at_start, &names);
      for (const LiveGroup& g : x.live_at_start) x.live_by_kind[int(live_kind(g))] += g.bytes;
      if (x.live_at_start.size() > in.top) x.live_at_start.resize(in.top);
    }
    x.explanation = explanation(x);
    if (!x.grouped && in.host)
      x.explanation += "; what was live is not grouped for this execution (" + std::to_string(n) +
                       " executions): select a time range around it";
  }
}

}  // namespace oomscope::analysis
