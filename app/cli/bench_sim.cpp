// `oomscope-cli bench simulate`: headless simulator throughput (attempts per second) on three workloads,
// from decision-tree-only to deep spatial recursion, plus the cost of one step back.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>

#include "app/cli/bench.h"
#include "core/sim/simulator.h"

namespace oomscope::cli {

namespace {

using namespace oomscope::sim;
using Clock = std::chrono::steady_clock;

struct Workload {
  const char* name;
  std::string what;
  SimConfig config;
};

std::vector<Workload> workloads(double scale) {
  std::vector<Workload> out;
  {
    // Every batch OOMs and every scene fits alone: the queue, the memory and time model and the log, with
    // no points generated. What the GUI's "run to end" costs per attempt at best.
    SimConfig c;
    c.scenes.count = static_cast<std::int64_t>(2'000'000 * scale);
    c.batch = 16;
    c.memory.budget = 6LL << 30;
    out.push_back(
        {"scene-splits",
         std::to_string(c.scenes.count) + " uniform scenes, batch 16, 6 GiB: batch OOM + per-scene retries",
         c});
  }
  {
    SimConfig c;  // the defaults: a third of the scenes need a spatial split
    // Spatial splits cost O(clusters), not O(points), so it takes this many epochs to run for a second.
    c.epochs = std::max<std::int64_t>(1, static_cast<std::int64_t>(10'000 * scale));
    out.push_back({"defaults",
                   "default config (64 scenes, batch 4, 4 GiB), " + std::to_string(c.epochs) + " epochs", c});
  }
  {
    SimConfig c;  // a bug under catch-everything: bisected down to the floor (the deepest trees)
    c.scenes.count = 64;
    c.epochs = std::max<std::int64_t>(1, static_cast<std::int64_t>(1'000 * scale));
    c.fault = Fault{BugKind::ShapeMismatch, 5};
    out.push_back(
        {"bug-to-floor",
         "defaults + shape bug in scene 5, catch everything, " + std::to_string(c.epochs) + " epochs", c});
  }
  {
    SimConfig c;  // the same, bisected at the median: each split searches the layout's quantile
    c.scenes.count = 64;
    c.epochs = std::max<std::int64_t>(1, static_cast<std::int64_t>(1'000 * scale));
    c.fault = Fault{BugKind::ShapeMismatch, 5};
    c.policy.split = SplitPoint::Median;
    c.policy.axis = AxisRule::Longest;
    out.push_back({"bug-median",
                   "bug-to-floor with median split, longest axis, " + std::to_string(c.epochs) + " epochs",
                   c});
  }
  return out;
}

int run_bench_simulate(bool quick) {
  const double scale = quick ? 0.05 : 1.0;
  // Wall and process CPU time: on a shared machine the CPU figure is the one that compares across runs.
  std::printf("%-14s %10s %10s %8s %8s %14s %14s %14s\n", "workload", "attempts", "events", "wall s", "cpu s",
              "attempts/s", "attempts/cpu-s", "points split/s");
  for (auto& w : workloads(scale)) {
    {
      // Streamed, as `simulate` runs: no event kept, counters only.
      Simulator sim(w.config);
      sim.keep_events(0);
      const auto t0 = Clock::now();
      const std::clock_t c0 = std::clock();
      sim.run_to_end();
      const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      const Totals& t = sim.totals();
      std::printf("%-14s %10lld %10lld %8.3f %8.3f %14.0f %14.0f %14s  (streamed, no events kept)\n", w.name,
                  static_cast<long long>(t.attempts), static_cast<long long>(sim.events_made()), s, cpu,
                  double(t.attempts) / s, double(t.attempts) / cpu, "");
    }
    Simulator sim(w.config);
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    sim.run_to_end();
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    const Totals& t = sim.totals();
    const double split_points = double(t.points_spatial + t.points_dropped);
    std::printf("%-14s %10lld %10zu %8.3f %8.3f %14.0f %14.0f %14.0f\n", w.name,
                static_cast<long long>(t.attempts), sim.log().events.size(), s, cpu, double(t.attempts) / s,
                double(t.attempts) / cpu, split_points / s);
    std::printf("  %s\n", w.what.c_str());

    // Step back through the last 200 steps: each replays its batch from the batch start.
    const int backs = 200;
    const auto b0 = Clock::now();
    int done = 0;
    while (done < backs && sim.step_back()) ++done;
    const double bs = std::chrono::duration<double>(Clock::now() - b0).count();
    std::printf("  step back: %d steps, %.1f us per step\n", done, done ? bs / done * 1e6 : 0.0);
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "peak resident memory of the whole bench: %.0f MiB (every event kept in the second line of "
      "each workload)\n",
      double(usage.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace

OOMSCOPE_BENCH(Command{"simulate", "split-and-retry simulator: attempts per second, headless",
                       [](CLI::App& app) -> Runner {
                         auto quick = std::make_shared<bool>(false);
                         app.footer(
                             "Runs four workloads to the end, streamed (as `simulate` runs) and with every "
                             "event kept (as the GUI\n"
                             "does), and prints attempts per second (and points split per second), then the "
                             "cost of stepping back.");
                         app.add_flag("--quick", *quick, "5 % of the work (for CI smoke runs)");
                         return [quick] { return run_bench_simulate(*quick); };
                       }});

}  // namespace oomscope::cli
