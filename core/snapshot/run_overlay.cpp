#include "core/snapshot/run_overlay.h"

#include <algorithm>
#include <charconv>

#include "core/snapshot/detail/overlay_downsample.h"
#include "core/snapshot/peak_sites.h"

namespace oomscope::snapshot {

namespace detail {

std::vector<OverlayPoint> downsample(const std::vector<OverlayPoint>& all, std::size_t points) {
  points = std::max<std::size_t>(points, 4);
  if (all.size() <= points) return all;
  const std::size_t buckets = points / 2;
  std::vector<OverlayPoint> out;
  out.reserve(points + 1);
  for (std::size_t k = 0; k < buckets; ++k) {
    const std::size_t lo = all.size() * k / buckets, hi = all.size() * (k + 1) / buckets;
    if (lo >= hi) continue;
    std::size_t mn = lo, mx = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (all[i].bytes < all[mn].bytes) mn = i;
      if (all[i].bytes > all[mx].bytes) mx = i;  // the first maximum: the peak entry itself
    }
    out.push_back(all[std::min(mn, mx)]);
    if (mn != mx) out.push_back(all[std::max(mn, mx)]);
  }
  return out;
}

}  // namespace detail

namespace {

using detail::downsample;

constexpr std::string_view kStepPrefix = "ProfilerStep#";

OverlayRun run_of(const Snapshot& s, const SnapshotReport& r, std::size_t points) {
  OverlayRun run;
  run.path = r.path;
  const DeviceAnalysis* d = main_device(s, r);
  if (!d) return run;
  run.device = d->device;
  static const std::vector<TraceEntry> kNone;
  const auto& trace = d->device >= 0 && static_cast<std::size_t>(d->device) < s.device_traces.size()
                          ? s.device_traces[static_cast<std::size_t>(d->device)]
                          : kNone;
  run.has_time = !trace.empty() &&
                 std::all_of(trace.begin(), trace.end(), [](const TraceEntry& e) { return e.time_us >= 0; });
  if (run.has_time) run.first_time_us = trace.front().time_us;
  run.steps = step_markers(s, d->device);
  const Timeline& t = d->timeline;
  std::vector<OverlayPoint> all;
  all.reserve(trace.size() + 1);
  auto x_of = [&](std::size_t i) {
    return run.has_time ? static_cast<double>(trace[i].time_us - run.first_time_us) : static_cast<double>(i);
  };
  all.push_back({run.has_time ? 0.0 : -1.0, t.initial_bytes});
  for (std::size_t i = 0; i < trace.size() && i < t.totals.size(); ++i) all.push_back({x_of(i), t.totals[i]});
  run.peak_bytes = t.peak_bytes;
  run.peak_x = t.peak_index >= 0 && static_cast<std::size_t>(t.peak_index) < trace.size()
                   ? x_of(static_cast<std::size_t>(t.peak_index))
                   : all.front().x;
  run.series = downsample(all, points);
  return run;
}

}  // namespace

std::vector<StepMarker> step_markers(const Snapshot& s, std::int64_t device) {
  std::vector<StepMarker> out;
  for (const Annotation& a : s.annotations) {
    if (a.device != device || a.stage != "START" || a.time_us < 0 || !a.name.starts_with(kStepPrefix))
      continue;
    const std::string_view digits = std::string_view(a.name).substr(kStepPrefix.size());
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) continue;
    out.push_back({n, a.time_us});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const StepMarker& x, const StepMarker& y) { return x.time_us < y.time_us; });
  return out;
}

bool align_on_common_step(RunOverlay& o, const char* runs) {
  for (const StepMarker& sa : o.a.steps) {
    const auto it = std::find_if(o.b.steps.begin(), o.b.steps.end(),
                                 [&](const StepMarker& sb) { return sb.step == sa.step; });
    if (it == o.b.steps.end()) continue;
    o.axis = OverlayAxis::Step;
    o.aligned_step = sa.step;
    o.b_offset = static_cast<double>(sa.time_us - o.a.first_time_us) -
                 static_cast<double>(it->time_us - o.b.first_time_us);
    o.why = std::string("both ") + runs +
            " carry ProfilerStep#N markers: B is shifted so that its ProfilerStep#" +
            std::to_string(sa.step) + " starts with A's";
    return true;
  }
  return false;
}

RunOverlay overlay_runs(const Snapshot& a, const SnapshotReport& ra, const Snapshot& b,
                        const SnapshotReport& rb, std::size_t points) {
  RunOverlay o;
  o.a = run_of(a, ra, points);
  o.b = run_of(b, rb, points);
  if (o.a.has_time && o.b.has_time) {
    if (align_on_common_step(o, "runs")) return o;
    o.axis = OverlayAxis::Time;
    const bool some = !o.a.steps.empty() || !o.b.steps.empty();
    o.why = std::string(some ? "the runs carry no ProfilerStep#N marker in common"
                             : "neither run carries ProfilerStep#N markers") +
            ": aligned by time from each trace's first entry";
    return o;
  }
  o.axis = OverlayAxis::Entry;
  o.why = "a trace without times on every entry: aligned by trace entry from each trace's first";
  return o;
}

}  // namespace oomscope::snapshot
