#include "core/snapshot/annotation_windows.h"

#include <algorithm>
#include <map>

namespace oomscope::snapshot {

namespace {

WindowKind kind_of(const std::string& name) {
  if (name.starts_with("ProfilerStep#")) return WindowKind::Step;
  if (name.starts_with("Optimizer.")) return WindowKind::Optimizer;
  return WindowKind::Other;
}

}  // namespace

AnnotationWindows annotation_windows(const Snapshot& snap, std::int64_t device, const Timeline& t) {
  AnnotationWindows out;
  static const std::vector<TraceEntry> kNone;
  const auto& trace = device >= 0 && static_cast<std::size_t>(device) < snap.device_traces.size()
                          ? snap.device_traces[static_cast<std::size_t>(device)]
                          : kNone;
  for (const TraceEntry& e : trace)
    if (e.time_us >= 0) {
      out.trace_has_time = true;
      break;
    }
  std::vector<const Annotation*> anns;
  for (const Annotation& a : snap.annotations)
    if (a.device == device && a.time_us >= 0 && (a.stage == "START" || a.stage == "END")) anns.push_back(&a);
  std::stable_sort(anns.begin(), anns.end(),
                   [](const Annotation* a, const Annotation* b) { return a->time_us < b->time_us; });
  std::map<std::string, std::vector<std::size_t>> open;  // name -> indices of windows still open
  for (const Annotation* a : anns) {
    if (a->stage == "START") {
      open[a->name].push_back(out.windows.size());
      out.windows.push_back({a->name, kind_of(a->name), a->time_us, -1});
    } else if (auto it = open.find(a->name); it != open.end() && !it->second.empty()) {
      out.windows[it->second.back()].end_us = a->time_us;
      it->second.pop_back();
    } else {
      ++out.unpaired_ends;
    }
  }
  if (!out.trace_has_time) return out;
  for (AnnotationWindow& w : out.windows) {
    // Entries with start <= time_us <= end (time_us is non-decreasing in every trace seen).
    auto first = std::lower_bound(trace.begin(), trace.end(), w.start_us,
                                  [](const TraceEntry& e, std::int64_t v) { return e.time_us < v; });
    auto last = w.end_us < 0
                    ? trace.end()
                    : std::upper_bound(trace.begin(), trace.end(), w.end_us,
                                       [](std::int64_t v, const TraceEntry& e) { return v < e.time_us; });
    const auto fi = static_cast<std::int64_t>(first - trace.begin());
    const auto li = static_cast<std::int64_t>(last - trace.begin()) - 1;
    w.bytes_at_start = t.bytes_at(fi - 1);
    w.peak_bytes = w.bytes_at_start;
    if (li < fi) {
      w.bytes_at_end = w.bytes_at_start;
      continue;
    }
    w.first_index = fi;
    w.last_index = li;
    for (std::int64_t i = fi; i <= li; ++i)
      if (t.bytes_at(i) > w.peak_bytes) w.peak_bytes = t.bytes_at(i), w.peak_index = i;
    w.bytes_at_end = t.bytes_at(li);
  }
  return out;
}

const AnnotationWindow* window_at(const AnnotationWindows& w, std::int64_t index) {
  const AnnotationWindow* best = nullptr;
  for (const AnnotationWindow& x : w.windows)
    if (x.first_index >= 0 && x.first_index <= index && index <= x.last_index) best = &x;
  return best;
}

}  // namespace oomscope::snapshot
