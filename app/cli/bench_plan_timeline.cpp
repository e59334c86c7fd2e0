// `oomscope-cli bench plan-timeline FILE...`: the core side of the Timeline page's plan vs runtime view on a
// capture: placing the plan on the clock, the points of one frame at several zooms (what a zoom or pan asks
// of core), and a time-range re-scope (the report rebuilt for a window).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/bench.h"
#include "core/analysis/plan_timeline.h"
#include "core/analysis/report.h"
#include "core/capture/reader.h"

namespace oomscope::cli {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void measure(const std::string& path, std::size_t pixels) {
  using clock = std::chrono::steady_clock;
  auto t = clock::now();
  const auto capture = capture::read_capture(path);
  const double read_ms = ms_since(t);
  t = clock::now();
  const analysis::HostReport report = analysis::build_host_report(*capture, {});
  const double report_ms = ms_since(t);
  NullProgress progress;
  t = clock::now();
  const analysis::PlanTimeline tl = analysis::map_plan_to_time(*capture, report, progress);
  const double map_ms = ms_since(t);
  std::printf("%s: read %.0f ms, report %.0f ms, plan placed on %zu executions in %.1f ms\n", path.c_str(),
              read_ms, report_ms, tl.executions.size(), map_ms);
  std::fflush(stdout);
  if (tl.executions.empty() || !report.plan) {
    for (const std::string& n : tl.notes) std::printf("  %s\n", n.c_str());
    return;
  }
  const std::int64_t first = tl.executions.front().start_ps, last = tl.executions.back().end_ps;
  struct Window {
    const char* name;
    std::int64_t t0, t1;
  };
  const std::int64_t span = std::max<std::int64_t>(last - first, 1);
  const std::vector<Window> windows = {
      {"whole", first, last},
      {"1/10", first + span / 3, first + span / 3 + span / 10},
      {"1/1000", first + span / 2, first + span / 2 + span / 1000},
      {"one execution", tl.executions.front().start_ps, tl.executions.front().end_ps}};
  for (const Window& w : windows) {
    t = clock::now();
    std::size_t planned = 0, visible = 0;
    const double ps_per_pixel = double(std::max<std::int64_t>(w.t1 - w.t0, 1)) / double(pixels);
    for (const analysis::ExecutionTimeline& x : tl.executions) {
      if (x.end_ps < w.t0 || x.start_ps > w.t1) continue;
      ++visible;
      const std::int64_t a = std::max(x.start_ps, w.t0), b = std::min(x.end_ps, w.t1);
      const auto buckets = std::size_t(std::max(1.0, double(b - a) / ps_per_pixel));
      planned += analysis::planned_points(x, report.plan->curve, report.plan->peak_event_index, a, b, buckets)
                     .size();
    }
    const std::size_t runtime =
        analysis::runtime_points(tl, capture->memory_events(), w.t0, w.t1, pixels).size();
    std::printf("  frame at %-13s %6zu executions visible, %6zu planned + %5zu runtime points: %.2f ms\n",
                w.name, visible, planned, runtime, ms_since(t));
  }
  analysis::ReportOptions scoped;
  scoped.module = std::to_string(tl.program_id);
  scoped.time_window = std::pair(first, tl.executions[tl.executions.size() / 2].end_ps);
  t = clock::now();
  const analysis::HostReport ranged = analysis::build_host_report(*capture, scoped);
  const analysis::PlanTimeline ranged_tl = analysis::map_plan_to_time(*capture, ranged, progress);
  std::printf("  range re-scope (report + plan timeline for %zu executions): %.0f ms\n",
              ranged_tl.executions.size(), ms_since(t));
}

struct PlanTimelineBenchOptions {
  std::vector<std::string> files;
  std::size_t pixels = 1200;
};

Runner define_bench_plan_timeline(CLI::App& app) {
  auto o = std::make_shared<PlanTimelineBenchOptions>();
  app.footer(
      "For each capture: read it, build the report, place the plan on the clock (map_plan_to_time),\n"
      "compute the planned and runtime points of one frame of N pixels at the whole capture, at 1/10,\n"
      "1/1000 and at one execution, and rebuild the report for the first half of the module's executions\n"
      "(a range selection). Prints milliseconds for each.");
  app.add_option("FILES", o->files, "captures to measure")->type_name("FILE")->required();
  app.add_option("--pixels", o->pixels, "width of a frame in pixels (default 1200)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  return [o] {
    for (const std::string& f : o->files) measure(f, o->pixels);
    return 0;
  };
}

}  // namespace

OOMSCOPE_BENCH(Command{
    "plan-timeline",
    "place the plan on the clock and compute Timeline frames and a range re-scope on captures",
    define_bench_plan_timeline});

}  // namespace oomscope::cli
