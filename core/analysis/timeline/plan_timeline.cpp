// Placing the plan's trace positions on the wall clock of each execution (plan_timeline.h).

#include "core/analysis/timeline/plan_timeline.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/analysis/timeline/detail/plan_timeline_detail.h"
#include "core/util/error.h"

namespace oomscope::analysis {

namespace {

using capture::DeviceProgramEvent;

bool of_program(const DeviceProgramEvent& d, std::uint64_t program_id, std::string_view module,
                std::span<const std::string> strings) {
  if (d.program_id != 0) return d.program_id == program_id;
  return d.module_name < strings.size() && strings[d.module_name] == module;
}

// The device events of one execution: those launched from its host span (correlation ids of launches on
// any thread of its host plane), else those of its program that started between its start and the next
// execution's start, on the device plane (or the busiest one).
std::vector<const DeviceProgramEvent*> kernels_of(
    const PlanTimelineInput& in, const RuntimeExecution& e, std::int64_t window_end,
    const std::unordered_map<std::uint64_t, std::size_t>& by_corr, std::uint64_t program_id,
    std::string_view module, bool& by_correlation) {
  std::vector<const DeviceProgramEvent*> out;
  const auto from =
      std::lower_bound(in.launches.begin(), in.launches.end(), e.start_ps,
                       [](const capture::LaunchEvent& l, std::int64_t t) { return l.time_ps < t; });
  for (auto it = from; it != in.launches.end() && it->time_ps <= e.end_ps; ++it) {
    if (it->plane != e.plane) continue;
    if (auto d = by_corr.find(it->correlation_id); d != by_corr.end())
      out.push_back(&in.device_events[d->second]);
  }
  by_correlation = !out.empty();
  if (by_correlation) return out;
  std::map<std::uint32_t, std::vector<const DeviceProgramEvent*>> by_plane;
  const auto first =
      std::lower_bound(in.device_events.begin(), in.device_events.end(), e.start_ps,
                       [](const DeviceProgramEvent& d, std::int64_t t) { return d.time_ps < t; });
  for (auto it = first; it != in.device_events.end() && it->time_ps < window_end; ++it)
    if (it->hlo_op != 0 && (!in.device_plane || it->plane == *in.device_plane) &&
        of_program(*it, program_id, module, in.strings))
      by_plane[it->plane].push_back(&*it);
  for (auto& [plane, events] : by_plane)
    if (events.size() > out.size()) out = std::move(events);
  return out;
}

}  // namespace

const char* to_string(TimeMapping mapping) noexcept {
  return enum_name(kTimeMappingNames, mapping, "stretched");
}

std::int64_t ExecutionTimeline::time_at(std::int64_t position) const {
  if (anchors.empty()) return start_ps;
  if (position <= anchors.front().position) return anchors.front().time_ps;
  if (position >= anchors.back().position) return anchors.back().time_ps;
  const auto hi = std::lower_bound(anchors.begin(), anchors.end(), position,
                                   [](const TimedPosition& a, std::int64_t p) { return a.position < p; });
  if (hi->position == position) return hi->time_ps;
  const auto lo = hi - 1;
  const double f = double(position - lo->position) / double(hi->position - lo->position);
  return lo->time_ps + std::int64_t(f * double(hi->time_ps - lo->time_ps));
}

std::int64_t ExecutionTimeline::position_at(std::int64_t t) const {
  if (anchors.empty() || t <= anchors.front().time_ps) return anchors.empty() ? 0 : anchors.front().position;
  if (t >= anchors.back().time_ps) return anchors.back().position;
  // The last anchor at or before t, then the last position between it and the next whose time is <= t.
  const auto hi = std::upper_bound(anchors.begin(), anchors.end(), t,
                                   [](std::int64_t v, const TimedPosition& a) { return v < a.time_ps; });
  const auto lo = hi - 1;
  if (hi->time_ps == lo->time_ps) return lo->position;
  const double f = double(t - lo->time_ps) / double(hi->time_ps - lo->time_ps);
  std::int64_t p = lo->position + std::int64_t(f * double(hi->position - lo->position));
  while (p + 1 < hi->position && time_at(p + 1) <= t) ++p;
  while (p > lo->position && time_at(p) > t) --p;
  return p;
}

PlanTimeline map_plan_to_time(const PlanTimelineInput& in, ProgressSink& progress, std::stop_token stop) {
  PlanTimeline out;
  out.allocator = in.allocator;
  if (!in.plan || in.plan->curve.size() == 0) {
    out.notes.push_back(
        "the analysed module has no heap-simulator curve: there is no plan to place on the timeline");
    return out;
  }
  const PlanAnalysis& plan = *in.plan;
  const MemoryCurve& curve = plan.curve;
  out.module = plan.module_name;
  out.program_id = plan.program_id;
  out.positions = std::int64_t(curve.size());
  if (in.executions.empty()) out.notes.push_back("the analysed module has no execution in the capture");
  if (in.allocator)
    for (std::size_t i = 0; i < in.memory.size(); ++i)
      if (in.memory[i].allocator == *in.allocator) out.allocator_events.push_back(std::uint32_t(i));
  summarize_allocator_events(out, in.memory);

  std::unordered_map<std::uint64_t, std::size_t> by_corr;
  for (std::size_t i = 0; i < in.device_events.size(); ++i) {
    const DeviceProgramEvent& d = in.device_events[i];
    if (in.device_plane && d.plane != *in.device_plane) continue;
    if (d.correlation_id != 0 && d.hlo_op != 0 &&
        of_program(d, plan.program_id, plan.module_name, in.strings))
      by_corr.emplace(d.correlation_id, i);
  }
  // Trace instruction names -> index into curve.instruction_names, for matching hlo_op strings.
  std::unordered_map<std::string_view, std::uint32_t> instruction_index;
  for (std::uint32_t i = 0; i < curve.instruction_names.size(); ++i)
    instruction_index.emplace(curve.instruction_names[i], i);

  std::vector<char> used(curve.instruction_names.size(), 0);  // instructions that have trace positions
  for (std::uint32_t i : curve.instruction) used[i] = 1;
  const std::int64_t last = out.positions - 1;
  for (std::size_t k = 0; k < in.executions.size(); ++k) {
    if (stop.stop_requested()) throw Cancelled("plan timeline");
    progress.report(double(k) / double(in.executions.size()), "placing the plan on the timeline");
    const RuntimeExecution& e = in.executions[k];
    ExecutionTimeline x;
    x.number = e.number;
    x.start_ps = e.start_ps;
    x.end_ps = std::max(e.end_ps, e.start_ps);
    x.allocator = e.allocator ? e.allocator : in.allocator;
    const std::int64_t window_end = k + 1 < in.executions.size() ? in.executions[k + 1].start_ps
                                                                 : std::numeric_limits<std::int64_t>::max();
    const auto kernels =
        kernels_of(in, e, window_end, by_corr, plan.program_id, plan.module_name, x.by_correlation);
    // First kernel start per instruction.
    std::vector<std::int64_t> first_start(curve.instruction_names.size(), -1);
    for (const DeviceProgramEvent* d : kernels) {
      if (d->hlo_op == 0 || d->hlo_op >= in.strings.size()) continue;
      ++x.kernels;
      x.device_plane = d->plane;
      x.end_ps = std::max(x.end_ps, d->time_ps + d->duration_ps);
      if (auto it = instruction_index.find(in.strings[d->hlo_op]); it != instruction_index.end()) {
        std::int64_t& t = first_start[it->second];
        if (t < 0 || d->time_ps < t) t = d->time_ps;
      }
    }
    for (std::size_t i = 0; i < used.size(); ++i)
      if (used[i]) ++(first_start[i] >= 0 ? x.timed_instructions : x.untimed_instructions);
    if (x.timed_instructions == 0) {
      x.mapping = TimeMapping::Stretched;
      x.anchors = {{0, x.start_ps}, {last, x.end_ps}};
      if (last == 0) x.anchors.pop_back();
    } else {
      x.mapping = TimeMapping::Kernels;
      std::int64_t running = x.start_ps;
      for (std::size_t p = 0; p < curve.size(); ++p) {
        const std::int64_t t = first_start[curve.instruction[p]];
        if (t < 0) continue;
        running = std::max(running, t);
        // Consecutive positions of one instruction share its time: keep the first and the last of the run.
        if (x.anchors.size() >= 2 && x.anchors.back().time_ps == running &&
            x.anchors[x.anchors.size() - 2].time_ps == running &&
            x.anchors.back().position + 1 == std::int64_t(p))
          x.anchors.back().position = std::int64_t(p);
        else
          x.anchors.push_back({std::int64_t(p), running});
      }
      if (x.anchors.front().position != 0) x.anchors.insert(x.anchors.begin(), {0, x.start_ps});
      if (x.anchors.back().position != last) x.anchors.push_back({last, std::max(x.end_ps, running)});
    }
    x.planned_peak_bytes = plan.peak_bytes;
    x.planned_peak_time_ps = x.time_at(std::max<std::int64_t>(plan.peak_event_index, 0));
    x.plan_parameters_bytes = plan.parameters_bytes;
    out.executions.push_back(std::move(x));
  }
  if (!in.executions.empty() && std::none_of(out.executions.begin(), out.executions.end(),
                                             [](const auto& x) { return x.mapping == TimeMapping::Kernels; }))
    out.notes.push_back(
        "no device event names an instruction of this module (stat hlo_op): the plan is stretched evenly "
        "over "
        "each execution's host span");
  explain_executions(in, out, stop);
  progress.report(1.0, "placing the plan on the timeline");
  return out;
}

}  // namespace oomscope::analysis
