// `oomscope-cli bench plan-timeline [FILE...] [--scale-to BYTES]`: the core side of the Timeline page's plan
// vs runtime view on a capture: reading it, the report, placing the plan on the clock, the points of one
// frame at several zooms (what a zoom or pan asks of core), and a time-range re-scope (the report, its text
// and the plan timeline rebuilt for a window, as the GUI's worker does). Each file is measured in a forked
// child, so its CPU time and max RSS are its own; wall and CPU are both printed because CPU time does not
// depend on what else the machine runs.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/analysis/report/report.h"
#include "core/analysis/report/report_text.h"
#include "core/analysis/timeline/plan_timeline.h"
#include "core/capture/reader.h"
#include "core/util/error.h"

namespace oomscope::cli {
namespace {

namespace fs = std::filesystem;

// Wall and CPU time (all threads of the process) since construction.
class Stopwatch {
 public:
  Stopwatch() : wall_(std::chrono::steady_clock::now()), cpu_(process_cpu()) {}
  double wall_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_).count();
  }
  double cpu_ms() const { return (process_cpu() - cpu_) * 1000.0; }

 private:
  static double process_cpu() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return cpu_seconds(ru);
  }
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

double max_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) * 1024.0;
}

// The kernel's own high-water mark of the resident set (VmHWM in /proc/self/status), in bytes; 0 if
// unreadable. The reader hands mapped file pages back as it passes them, so this and max RSS should agree.
double vm_hwm_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
  std::fclose(f);
  return kib * 1024.0;
}

void phase(const char* name, const Stopwatch& w, const char* extra = "") {
  std::printf("  %-34s %9.0f ms wall %9.0f ms CPU  max RSS %7.0f MiB%s\n", name, w.wall_ms(), w.cpu_ms(),
              max_rss_bytes() / 1048576.0, extra);
  std::fflush(stdout);
}

const char* verdict(bool ok) { return ok ? "PASS" : "FAIL"; }

int measure(const std::string& path, std::size_t pixels) {
  std::error_code ec;
  const double file_bytes = double(fs::file_size(path, ec));
  std::printf("%s (%.0f MiB)\n", path.c_str(), file_bytes / 1048576.0);
  Stopwatch read;
  const auto capture = capture::read_capture(path);
  phase("read", read);
  const double read_wall = read.wall_ms(), read_cpu = read.cpu_ms();
  std::size_t events = 0;
  for (const capture::Plane& p : capture->planes()) events += p.event_count();
  std::printf("  %zu events, %zu memory events, %zu device events, %zu launches\n", events,
              capture->memory_events().size(), capture->device_program_events().size(),
              capture->launch_events().size());
  Stopwatch report_clock;
  const analysis::HostReport report = analysis::build_host_report(*capture, {});
  phase("report", report_clock);
  NullProgress progress;
  Stopwatch place;
  const analysis::PlanTimeline tl = analysis::map_plan_to_time(*capture, report, progress);
  const std::string placed = ", " + std::to_string(tl.executions.size()) + " executions";
  phase("plan placed on the clock", place, placed.c_str());
  const double analysis_cpu = report_clock.cpu_ms(), analysis_wall = report_clock.wall_ms();
  if (tl.executions.empty() || !report.plan) {
    for (const std::string& n : tl.notes) std::printf("  %s\n", n.c_str());
    return 0;
  }
  const std::int64_t first = tl.executions.front().start_ps, last = tl.executions.back().end_ps;
  const std::int64_t span = std::max<std::int64_t>(last - first, 1);
  struct Window {
    const char* name;
    std::int64_t t0, t1;
  };
  const std::vector<Window> windows = {
      {"whole", first, last},
      {"1/10", first + span / 3, first + span / 3 + span / 10},
      {"1/1000", first + span / 2, first + span / 2 + span / 1000},
      {"one execution", tl.executions.front().start_ps, tl.executions.front().end_ps}};
  double worst_frame = 0;
  for (const Window& w : windows) {
    Stopwatch frame;
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
    worst_frame = std::max(worst_frame, frame.wall_ms());
    std::printf("  frame at %-13s %6zu executions visible, %6zu planned + %5zu runtime points: %.2f ms\n",
                w.name, visible, planned, runtime, frame.wall_ms());
  }
  analysis::ReportOptions scoped;
  scoped.program_id = tl.program_id;
  scoped.top = 25;
  scoped.time_window = std::pair(first + span / 3, first + span / 3 + span / 10);
  scoped.whole_capture = &report;  // as the GUI does: the report shown before the selection
  Stopwatch rescope;
  const analysis::HostReport ranged = analysis::build_host_report(*capture, scoped);
  std::ostringstream text;
  analysis::write_report_text(text, ranged, scoped.top);
  const analysis::PlanTimeline ranged_tl = analysis::map_plan_to_time(*capture, ranged, progress);
  const std::string rescoped = ", " + std::to_string(ranged_tl.executions.size()) + " executions";
  phase("range re-scope, 1/10 of the capture", rescope, rescoped.c_str());
  const double rescope_ms = rescope.wall_ms(), rescope_cpu = rescope.cpu_ms();

  const double rss = max_rss_bytes();
  std::printf("  target: read under 10 s ................... %s (%.1f s wall, %.1f s CPU)\n",
              verdict(read_wall < 10000), read_wall / 1000, read_cpu / 1000);
  std::printf("  target: report + placement under 10 s .... %s (%.1f s wall, %.1f s CPU)\n",
              verdict(analysis_wall < 10000), analysis_wall / 1000, analysis_cpu / 1000);
  std::printf("  target: max RSS under 2x the file ........ %s (%.2fx)\n", verdict(rss < 2 * file_bytes),
              rss / file_bytes);
  std::printf("  (VmHWM in /proc/self/status: %.0f MiB, %.2fx)\n", vm_hwm_bytes() / 1048576.0,
              vm_hwm_bytes() / file_bytes);
  std::printf("  target: a frame's points under 100 ms .... %s (worst %.1f ms)\n", verdict(worst_frame < 100),
              worst_frame);
  std::printf("  target: range re-scope under 1 s ......... %s (%.2f s wall, %.2f s CPU)\n",
              verdict(rescope_ms < 1000), rescope_ms / 1000, rescope_cpu / 1000);
  return 0;
}

struct PlanTimelineBenchOptions {
  std::vector<std::string> files;
  std::size_t pixels = 1200;
  std::optional<std::string> scale_to;
  std::optional<std::string> source;
  bool keep = false;
};

int run_one(const std::string& path, std::size_t pixels) {
  std::fflush(stdout);
  const ChildRun run = run_in_child([&]() -> std::pair<int, std::string> {
    try {
      const int code = measure(path, pixels);
      std::fflush(stdout);
      return {code, ""};
    } catch (const std::exception& e) {
      std::fflush(stdout);
      return {1, e.what()};
    }
  });
  if (!run.ok()) {
    std::printf("%s: failed%s%s\n", path.c_str(), run.message.empty() ? "" : ": ", run.message.c_str());
    return 1;
  }
  std::printf("  whole run: %.1f s wall, %.1f s CPU, max RSS %.0f MiB\n", run.wall_s, run.cpu_s,
              double(run.max_rss_kib) / 1024.0);
  return 0;
}

int run_bench(const PlanTimelineBenchOptions& o) {
  int code = 0;
  for (const std::string& f : o.files) code |= run_one(f, o.pixels);
  if (!o.scale_to) return code;
  const fs::path src = find_source_tree("tests/bench/make_big_capture.py");
  char folder_template[] = "/tmp/oomscope-bench-XXXXXX";
  if (!mkdtemp(folder_template))
    throw Error(ErrorKind::Io, "/tmp", "cannot create a folder for the big capture");
  const fs::path big = fs::path(folder_template) / "big.xplane.pb";
  const std::string from =
      o.source ? *o.source : (src / "tests/data/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb").string();
  int status = 0;
  long rss = 0;
  const std::string made =
      run_process({"/usr/bin/python3", (src / "tests/bench/make_big_capture.py").string(), big.string(),
                   "--size", *o.scale_to, "--source", from},
                  status, rss);
  std::error_code ec;
  if (status != 0) {
    fs::remove_all(folder_template, ec);
    throw Error(ErrorKind::Io, big.string(), "make_big_capture.py failed: " + made);
  }
  std::printf("scaled capture: %s", made.c_str());
  code |= run_one(big.string(), o.pixels);
  if (o.keep)
    std::printf("kept %s\n", big.string().c_str());
  else
    fs::remove_all(folder_template, ec);
  return code;
}

Runner define_bench_plan_timeline(CLI::App& app) {
  auto o = std::make_shared<PlanTimelineBenchOptions>();
  app.footer(
      "For each capture (FILES, and with --scale-to one made by tests/bench/make_big_capture.py from\n"
      "--source in a fresh folder under /tmp, deleted afterwards unless --keep): read it, build the report,\n"
      "place the plan on the clock (map_plan_to_time), compute the planned and runtime points of one frame\n"
      "of N pixels at the whole capture, at 1/10, 1/1000 and one execution, and rebuild the report, its "
      "text\n"
      "and the plan timeline for 1/10 of the capture (a range selection). Prints wall and CPU milliseconds\n"
      "and max RSS for each, then the targets: read under 10 s, report + placement under 10 s, max RSS\n"
      "under 2x the file, a frame under 100 ms, a re-scope under 1 s. The GUI side (event loop while\n"
      "loading, drawn frames, re-scoped tables) is bench_gui_big_capture (CONTRIBUTING.md).");
  app.add_option("FILES", o->files, "captures to measure")->type_name("FILE");
  app.add_option("--pixels", o->pixels, "width of a frame in pixels (default 1200)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  app.add_option_function<std::string>(
         "--scale-to", [o](const std::string& v) { o->scale_to = v; },
         "also measure a capture of about BYTES (200M, 1G, ...)")
      ->type_name("BYTES");
  app.add_option_function<std::string>(
         "--source", [o](const std::string& v) { o->source = v; },
         "the capture to scale up (default tests/data/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb)")
      ->type_name("FILE");
  app.add_flag("--keep", o->keep, "keep the scaled capture");
  return [o] {
    if (o->files.empty() && !o->scale_to) throw UsageError{"give FILES, --scale-to BYTES or both"};
    return run_bench(*o);
  };
}

}  // namespace

OOMSCOPE_BENCH(Command{
    "plan-timeline",
    "read, report, place the plan on the clock, Timeline frames and a range re-scope on captures",
    define_bench_plan_timeline});

}  // namespace oomscope::cli
