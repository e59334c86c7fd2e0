#include "core/snapshot/kineto_overlay.h"

#include <algorithm>
#include <cmath>

#include "core/snapshot/detail/overlay_downsample.h"
#include "core/snapshot/kineto_ranks.h"

namespace oomscope::snapshot {

namespace {

OverlayRun run_of(const KinetoTrace& t, std::size_t points) {
  OverlayRun run;
  run.path = t.path;
  const KinetoDevice* d = rank_device(t);
  if (!d || d->series.empty()) return run;
  run.device = d->device_id;
  run.has_time = true;
  const double t0 = d->first_ts_us;
  run.first_time_us = std::llround(t0);
  for (const KinetoStep& s : t.steps) run.steps.push_back({s.step, std::llround(s.ts_us)});
  std::vector<OverlayPoint> all;
  all.reserve(d->series.size());
  run.peak_bytes = d->series.front().live_bytes;
  run.peak_x = 0;
  for (const KinetoPoint& p : d->series) {
    all.push_back({p.ts_us - t0, p.live_bytes});
    if (p.live_bytes > run.peak_bytes) run.peak_bytes = p.live_bytes, run.peak_x = p.ts_us - t0;
  }
  run.series = detail::downsample(all, points);
  return run;
}

}  // namespace

RunOverlay overlay_kineto(const KinetoTrace& a, const KinetoTrace& b, std::size_t points) {
  RunOverlay o;
  o.a = run_of(a, points);
  o.b = run_of(b, points);
  o.axis = OverlayAxis::Time;
  if (!o.a.has_time || !o.b.has_time) {
    o.why = std::string("trace ") + (o.a.has_time ? "B" : "A") +
            " has no [memory] event on an accelerator: there is no memory timeline to align";
    return o;
  }
  if (align_on_common_step(o, "traces")) return o;
  const bool some = !o.a.steps.empty() || !o.b.steps.empty();
  o.why = std::string(some ? "the traces carry no ProfilerStep#N marker in common"
                           : "neither trace carries ProfilerStep#N markers") +
          ": aligned by time from each trace's first [memory] event";
  return o;
}

}  // namespace oomscope::snapshot
