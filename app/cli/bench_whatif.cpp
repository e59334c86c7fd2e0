// `oomscope-cli bench whatif [SNAPSHOT] [--entries N]`: the caching allocator model's replay speed. The
// snapshot's trace (default: cs336_bf16, whose 2,811 entries free every block they allocate) is repeated
// until it holds N entries (default 1,000,000), as if the same step ran again and again; each scenario is
// replayed once and timed (wall and CPU), then the standard what-if set as `whatif` runs it, on one thread
// and on --threads (default: one per core), whose results must be identical.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/allocator/replay.h"
#include "core/allocator/whatif.h"
#include "core/allocator/whatif_json.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

struct WhatIfBenchOptions {
  std::string file;
  std::size_t entries = 1000000;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

int run_bench_whatif(const WhatIfBenchOptions& o) {
  std::string file = o.file;
  if (file.empty())
    file = (find_source_tree("tests/data/torch_snapshot_cs336_bf16_ctx128.pickle") /
            "tests/data/torch_snapshot_cs336_bf16_ctx128.pickle")
               .string();
  const auto source = snapshot::read_snapshot(file);
  snapshot::Snapshot big = *source;
  std::size_t device = 0;
  for (std::size_t d = 0; d < big.device_traces.size(); ++d)
    if (big.device_traces[d].size() > big.device_traces[device].size()) device = d;
  const std::vector<snapshot::TraceEntry> step = big.device_traces.at(device);
  if (step.empty()) {
    std::printf("%s has no trace to replay\n", file.c_str());
    return 1;
  }
  auto& trace = big.device_traces[device];
  trace.clear();
  trace.reserve(o.entries + step.size());
  while (trace.size() < o.entries) trace.insert(trace.end(), step.begin(), step.end());
  std::printf("%s: its %zu-entry trace repeated to %zu entries (device %zu)\n", file.c_str(), step.size(),
              trace.size(), device);

  std::vector<std::string> notes;
  const allocator::AllocatorConfig recorded = allocator::config_from_snapshot(big, notes);
  const char* settings[] = {nullptr, "expandable_segments:True", "max_split_size_mb:64",
                            "roundup_power2_divisions:4"};
  for (const char* s : settings) {
    allocator::ReplayOptions r;
    r.config = recorded;
    if (s) allocator::apply_setting(r.config, s);
    r.device = static_cast<std::int64_t>(device);
    r.validate = s == nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    const allocator::ReplayResult res = allocator::replay(big, r);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - c0;
    std::printf("  %-28s %.3f s wall, %.3f s CPU, %.2f M entries/s CPU; peak reserved %llu B%s\n",
                s ? s : "recorded (with validation)", wall, cpu,
                cpu > 0 ? static_cast<double>(res.replayed) / cpu / 1e6 : 0.0,
                static_cast<unsigned long long>(res.peak_reserved), res.first_oom ? ", OOM" : "");
  }
  // The standard set on one thread, then on `threads` (default: every core): the same result either way.
  std::string first_json;
  for (const unsigned threads : {1u, o.threads}) {
    allocator::WhatIfOptions w_options;
    w_options.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    NullProgress none;
    const allocator::WhatIfResult w = allocator::run_whatif(big, w_options, none);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - c0;
    std::size_t replays = 1 + w.scenarios.size();
    for (const auto& c : w.capacity_searches) replays += c.replays + 1;
    const std::string json = allocator::whatif_json(w).dump();
    if (first_json.empty()) first_json = json;
    std::printf(
        "  standard what-if set, %u thread%s: %.3f s wall, %.3f s CPU (all threads) for about %zu "
        "replays%s\n",
        threads, threads == 1 ? "" : "s", wall, cpu, replays,
        json == first_json ? (threads == 1 ? "" : "; result identical to 1 thread")
                           : "; RESULT DIFFERS from 1 thread");
    if (threads == o.threads && threads == 1) break;
  }
  return 0;
}

Runner define_bench_whatif(CLI::App& app) {
  auto o = std::make_shared<WhatIfBenchOptions>();
  app.add_option("SNAPSHOT", o->file, "the snapshot whose trace is repeated (default: tests/data cs336_bf16)")
      ->type_name("FILE");
  add_count(app, "--entries", o->entries, "trace entries to replay per scenario (default 1000000)");
  app.add_option("--threads", o->threads,
                 "threads for the second run of the standard set (default: one per core; the first uses 1)")
      ->type_name("N")
      ->check(CLI::Range(1u, 256u));
  return [o] { return run_bench_whatif(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"whatif",
                       "caching allocator model: replay speed per scenario on a repeated real trace",
                       define_bench_whatif});

}  // namespace oomscope::cli
