#include "app/cli/sim_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "core/sim/trace_json.h"
#include "core/util/bytes.h"

namespace oomscope::cli {

using namespace oomscope::sim;

std::string format_duration_ns(std::int64_t ns) {
  static const struct {
    double scale;
    const char* unit;
  } units[] = {{3600e9, "h"}, {60e9, "min"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  if (ns == 0) return "0 s";
  const double v = static_cast<double>(ns < 0 ? -ns : ns);
  for (const auto& u : units) {
    if (v < u.scale && u.scale > 1) continue;
    const double x = v / u.scale;
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  x >= 99.95   ? "%s%.0f %s"
                  : x >= 9.995 ? "%s%.1f %s"
                               : "%s%.2f %s",
                  ns < 0 ? "-" : "", x, u.unit);
    return buf;
  }
  return "0 ns";
}

namespace {

std::string num(std::int64_t v) { return format_bytes_exact(v); }

std::string pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
  return buf;
}

std::string share(std::int64_t part, std::int64_t whole) {
  return pct(whole ? double(part) / double(whole) : 0.0);
}

std::string baseline_row(const char* name, const BaselineResult& b) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "  %-34s %9s %7s %10s %9s %9s%s\n", name, num(b.attempts).c_str(),
                num(b.optimizer_steps).c_str(), format_duration_ns(b.time_ns).c_str(),
                pct(b.mean_utilisation).c_str(), pct(b.peak_utilisation).c_str(),
                b.feasible ? "" : ("  infeasible: " + num(b.oom_attempts) + " attempts OOM").c_str());
  return buf;
}

}  // namespace

void print_sim_report(std::ostream& out, const Simulator& sim) {
  const SimConfig& c = sim.config();
  const Totals& t = sim.totals();
  const Policy& p = c.policy;
  const auto& m = c.memory;
  const std::int64_t fits = m.budget > m.fixed_bytes ? (m.budget - m.fixed_bytes) / m.bytes_per_point : 0;

  out << "split-and-retry simulation\n";
  out << "  policy     " << preset_name(p) << ": catch " << to_string(p.catch_mode) << ", grad "
      << to_string(p.grad) << ", split " << to_string(p.split) << ", axis " << to_string(p.axis) << ", floor "
      << num(p.floor) << " (" << to_string(p.on_floor) << "), norm " << to_string(p.norm) << "\n";
  out << "  scenes     " << num(c.scenes.count) << " "
      << (c.scenes.dist == SizeDist::File ? "from " + c.scenes.sizes_file
                                          : std::string(to_string(c.scenes.dist)))
      << ", seed " << c.seed << "; batch " << c.batch << ", " << c.epochs
      << (c.epochs == 1 ? " epoch" : " epochs") << " (" << num(sim.batch_count()) << " batches"
      << (c.max_batches > 0 ? ", --max-batches" : "") << ")\n";
  out << "  memory     " << format_bytes(m.bytes_per_point) << "/point + " << format_bytes(m.fixed_bytes)
      << "/attempt in " << format_bytes(m.budget) << ": one fragment fits up to " << num(fits) << " points\n";
  out << "             fragmentation after an OOM: " << format_bytes(m.fragmentation_penalty)
      << ", each empty_cache() returns " << pct(double(m.empty_cache_relief_permille) / 1000.0) << " of it\n";
  out << "  fault      ";
  if (c.fault.kind == BugKind::None)
    out << "none\n";
  else
    out << (c.fault.kind == BugKind::ShapeMismatch ? "shape mismatch" : "NaN loss") << " in scene "
        << c.fault.scene << "\n";

  out << "\nrun\n";
  out << "  batches                " << num(t.batches) << " (" << num(t.scenes) << " scenes, "
      << num(t.points) << " points), " << num(t.optimizer_steps) << " optimizer steps\n";
  out << "  attempts               " << num(t.attempts) << ": ok " << num(t.ok_attempts) << ", oom "
      << num(t.oom_attempts) << ", bug " << num(t.bug_attempts) << ", crash " << num(t.crashes) << "\n";
  out << "  retries                " << num(t.retries) << "\n";
  out << "  wasted forward passes  " << num(t.wasted_forward_passes) << "\n";
  if (t.crashes)  // an OOM-free run of the same batches would crash too: no overhead to speak of
    out << "  time                   " << format_duration_ns(t.time_ns) << " simulated until the crash\n";
  else
    out << "  time                   " << format_duration_ns(t.time_ns) << " simulated, "
        << format_duration_ns(t.oom_free_time_ns) << " without OOMs: overhead " << pct(t.overhead()) << "\n";
  out << "  dropped                " << num(t.dropped_fragments) << " fragments, " << num(t.points_dropped)
      << " points (" << share(t.points_dropped, t.points) << "); scenes lost whole " << num(t.scenes_dropped)
      << ", in part " << num(t.scenes_partially_dropped) << "\n";
  if (t.unsplittable_fragments)
    out << "                         " << num(t.unsplittable_fragments)
        << " of them could not be split further\n";
  out << "  gradient at step       " << pct(t.applied_point_fraction()) << " of points, "
      << pct(t.applied_scene_fraction()) << " of scenes";
  if (t.discarded_gradients)
    out << " (" << num(t.discarded_gradients) << " fragment gradients zeroed before it)";
  out << "\n";
  if (p.grad == GradMode::Accumulate && t.renormalised_steps)
    out << "                         " << num(t.renormalised_steps)
        << " steps renormalised (loss scales summed to under 1 after drops)\n";
  if (t.floor_kept_fragments)
    out << "  kept at the floor      " << num(t.floor_kept_fragments) << " fragments of <= " << num(p.floor)
        << " points trained instead of dropped\n";
  out << "  spatial fragments      " << num(t.points_spatial) << " points trained in spatial halves ("
      << share(t.points_spatial, t.points) << ")\n";
  if (p.norm == NormMode::BatchNorm)
    out << "  BatchNorm statistics   " << num(t.norm_biased_points)
        << " points normalised by a spatial half's "
        << "statistics, " << num(t.norm_small_fragments) << " fragments of <= " << num(2 * p.floor)
        << " points\n";
  else
    out << "  BatchNorm statistics   none from fragments (" << to_string(p.norm) << ")\n";
  out << "  empty_cache() calls    " << num(t.empty_cache_calls) << "\n";
  out << "  crashes                " << num(t.crashes);
  if (t.crashes) out << ": scene " << t.crash_scene << " at trace event " << t.crash_event;
  out << "\n";

  out << "\nsame scenes, other schedules\n";
  char head[200];
  std::snprintf(head, sizeof head, "  %-34s %9s %7s %10s %9s %9s\n", "", "attempts", "steps", "time",
                "mean mem", "peak mem");
  out << head;
  BaselineResult self;
  self.feasible = true;
  self.attempts = t.attempts;
  self.optimizer_steps = t.optimizer_steps;
  self.time_ns = t.time_ns;
  self.mean_utilisation =
      t.ok_attempts ? double(t.ok_bytes_sum) / double(t.ok_attempts) / double(m.budget) : 0;
  self.peak_utilisation = double(t.peak_ok_bytes) / double(m.budget);
  out << baseline_row("split-and-retry (this run)", self);
  const Baselines& b = sim.baselines();
  const std::string lazy = "lazy fix (batch " + num(b.lazy_fix.scenes_per_attempt) + ")";
  out << baseline_row(lazy.c_str(), b.lazy_fix);
  const std::string micro = "micro-batches (" + num(b.micro_batch.scenes_per_attempt) + " x " +
                            num(b.micro_batch.accumulation) + ", accumulated)";
  out << baseline_row(micro.c_str(), b.micro_batch);
  out << "  (mem: bytes needed / budget, over the attempts that ran; this run: its successful attempts)\n";
  if (!b.lazy_fix.feasible)
    out << "  (infeasible: a scene alone needs more than the budget, so only a spatial split can train it)\n";
}

nlohmann::ordered_json sim_report_json(const Simulator& sim) {
  nlohmann::ordered_json j;
  j["config"] = config_to_json(sim.config());
  j["totals"] = totals_to_json(sim.totals());
  j["baselines"] = baselines_to_json(sim.baselines());
  if (sim.crashed()) {
    const auto& c = sim.config();
    j["crash"] = {{"scene", sim.totals().crash_scene},
                  {"kind", sim.totals().floor_raised ? "floor" : to_string(c.fault.kind)},
                  {"event", sim.totals().crash_event}};
  } else {
    j["crash"] = nullptr;
  }
  return j;
}

}  // namespace oomscope::cli
