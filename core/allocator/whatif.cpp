#include "core/allocator/whatif.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "core/allocator/detail/parallel_runs.h"
#include "core/util/error.h"

namespace oomscope::allocator {

namespace {

std::int64_t longest_trace_device(const snapshot::Snapshot& snap) {
  std::size_t best = 0;
  std::int64_t device = 0;
  for (std::size_t d = 0; d < snap.device_traces.size(); ++d)
    if (snap.device_traces[d].size() > best) {
      best = snap.device_traces[d].size();
      device = static_cast<std::int64_t>(d);
    }
  return device;
}

// The largest segment the recorded run held (at its start, allocated during it, or at its end).
std::uint64_t largest_segment(const snapshot::Snapshot& snap, std::int64_t device) {
  std::uint64_t top = 0;
  for (const snapshot::Segment& s : snap.segments)
    if (s.device == device) top = std::max(top, static_cast<std::uint64_t>(s.total_size));
  for (const snapshot::TraceEntry& e : snap.device_traces[static_cast<std::size_t>(device)])
    if (e.action == snapshot::Action::SegmentAlloc) top = std::max(top, static_cast<std::uint64_t>(e.size));
  return top;
}

// Replays for run_whatif, from several threads at once: progress is reported from the calling thread only
// (a ProgressSink need not be thread-safe), counting the replays every thread has finished.
struct Runner {
  const snapshot::Snapshot& snap;
  std::int64_t device;
  ProgressSink& progress;
  std::stop_token stop;
  std::size_t planned = 1;
  bool curves = false;  // keep the curve of the recorded run and the scenarios (not of the searches)
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<std::size_t> done{0};

  ReplayResult run(const AllocatorConfig& config, std::uint64_t capacity, bool validate,
                   bool as_recorded = true, bool curve = false) {
    ReplayOptions o;
    o.keep_curve = curve && curves;
    o.recorded_oom_capacity = as_recorded;
    o.config = config;
    o.capacity = capacity;
    o.device = device;
    o.validate = validate;
    ReplayResult r = replay(snap, o, stop);
    const std::size_t n = done.fetch_add(1) + 1;
    if (std::this_thread::get_id() == caller)
      progress.report(std::min(1.0, static_cast<double>(n) / static_cast<double>(std::max(planned, n))),
                      "replaying");
    return r;
  }
};

bool fits(const ReplayResult& r) { return !r.first_oom && r.replayed == r.entries; }

// The smallest capacity (2 MiB steps) at which the trace ran without an OOM, by bisection between the peak
// allocated (no run fits below it) and the unlimited run's peak reserved (which always fits).
CapacitySearch search_capacity(Runner& run, const std::string& name, const AllocatorConfig& config,
                               const ReplayResult& unlimited) {
  CapacitySearch s;
  s.settings = name;
  constexpr std::uint64_t step = kSmallBuffer;
  std::uint64_t hi = (unlimited.peak_reserved + step - 1) / step;
  std::uint64_t lo = unlimited.peak_allocated / step;  // lo * step does not fit unless it is checked below
  s.searched_up_to = hi * step;
  if (!fits(unlimited)) return s;
  if (lo >= hi) {
    s.capacity = hi * step;
    return s;
  }
  if (lo > 0) {
    ++s.replays;
    if (fits(run.run(config, lo * step, false))) {
      s.capacity = lo * step;
      return s;
    }
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    ++s.replays;
    if (fits(run.run(config, mid * step, false)))
      hi = mid;
    else
      lo = mid;
  }
  s.capacity = hi * step;
  return s;
}

Scenario make(ScenarioKind kind, std::string name, ReplayResult r, const ReplayResult& recorded) {
  Scenario s{kind, std::move(name), std::move(r), std::nullopt};
  if (!s.result.first_oom && !recorded.first_oom)
    s.saved_vs_recorded =
        static_cast<std::int64_t>(recorded.peak_reserved) - static_cast<std::int64_t>(s.result.peak_reserved);
  return s;
}

}  // namespace

WhatIfResult run_whatif(const snapshot::Snapshot& snap, const WhatIfOptions& options, ProgressSink& progress,
                        const std::stop_token& stop) {
  WhatIfResult out;
  out.path = snap.path;
  out.device = options.device.value_or(longest_trace_device(snap));
  const auto dev = static_cast<std::size_t>(out.device);
  if (out.device < 0 || dev >= snap.device_traces.size() || snap.device_traces[dev].empty())
    throw Error(ErrorKind::InvalidArgument, snap.path,
                "device " + std::to_string(out.device) +
                    " has no allocator trace to replay (record one with "
                    "torch.cuda.memory._record_memory_history() before the step, then dump the snapshot)");
  out.trace_entries = snap.device_traces[dev].size();
  out.recorded_config = config_from_snapshot(snap, out.notes);
  out.settings_recorded = snap.has_allocator_settings;
  if (!out.settings_recorded)
    out.notes.push_back(
        "the file has no allocator_settings (PyTorch before 2.3): the replay assumes PyTorch's defaults, "
        "which "
        "holds only if the run did not set PYTORCH_CUDA_ALLOC_CONF");
  AllocatorConfig requested = out.recorded_config;
  for (const std::string& kv : options.settings) {
    try {
      apply_setting(requested, kv);
    } catch (const Error& e) {
      throw Error(ErrorKind::InvalidArgument, snap.path, e.message());
    }
  }
  out.standard = !options.one_scenario && options.settings.empty() && !options.capacity;

  // One stop for every thread: the caller's, or a failed replay's request that the others stop.
  std::stop_source stop_all;
  const std::stop_callback forward(stop, [&stop_all] { stop_all.request_stop(); });
  const unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  Runner run{snap,
             out.device,
             progress,
             stop_all.get_token(),
             std::size_t{out.standard ? 40u : 2u},
             options.keep_curves};
  // The recorded run: recorded settings, the recorded capacity (unlimited, or what the oom entry says).
  ReplayResult recorded = run.run(out.recorded_config, kNoLimit, true, true, true);
  if (options.capacity) {
    out.capacity = *options.capacity;
  } else if (recorded.oom_capacity) {
    out.capacity = *recorded.oom_capacity;
    out.capacity_from_oom = true;
  }
  out.recorded = make(ScenarioKind::Recorded, "recorded", std::move(recorded), ReplayResult{});
  out.recorded.saved_vs_recorded.reset();
  out.notes.insert(out.notes.end(), out.recorded.result.notes.begin(), out.recorded.result.notes.end());
  const std::uint64_t capacity = out.capacity.value_or(kNoLimit);
  const ReplayResult& base = out.recorded.result;

  if (!out.standard) {
    std::string name = describe_change(requested, out.recorded_config);
    if (name == "recorded") name = "recorded settings";
    out.scenarios.push_back(
        make(ScenarioKind::Requested, name, run.run(requested, capacity, false, true, true), base));
    return out;
  }
  // Each single setting that can change where memory goes in this trace.
  std::vector<std::string> tries;
  tries.push_back(out.recorded_config.expandable_segments ? "expandable_segments:False"
                                                          : "expandable_segments:True");
  if (out.recorded_config.max_split_size == kNoLimit) {
    const std::uint64_t top = largest_segment(snap, out.device);
    for (std::uint64_t mb : {64, 128, 256, 512, 1024})
      if (mb * kMiB < top) tries.push_back("max_split_size_mb:" + std::to_string(mb));
  }
  if (out.recorded_config.divisions_for(kMiB) <= 1) tries.push_back("roundup_power2_divisions:4");
  if (out.capacity && out.recorded_config.garbage_collection_threshold == 0.0)
    tries.push_back("garbage_collection_threshold:0.8");
  // The single settings and, when the search below needs it, the recorded settings without a limit:
  // independent replays, in parallel, their results in this order.
  const bool recorded_oom = base.oom_capacity.has_value();
  const bool reuse_base = capacity == kNoLimit && !recorded_oom;
  std::vector<std::function<ReplayResult()>> tasks;
  for (const std::string& t : tries) {
    AllocatorConfig c = out.recorded_config;
    apply_setting(c, t);
    tasks.emplace_back([&run, c, capacity] { return run.run(c, capacity, false, true, true); });
  }
  if (!reuse_base)
    tasks.emplace_back([&run, &out] { return run.run(out.recorded_config, kNoLimit, false, false); });
  std::vector<ReplayResult> replays = detail::run_parallel(tasks, threads, stop_all);
  for (std::size_t i = 0; i < tries.size(); ++i)
    out.scenarios.push_back(make(ScenarioKind::SingleSetting, tries[i], std::move(replays[i]), base));
  for (std::size_t i = 0; i < out.scenarios.size(); ++i) {
    const Scenario& s = out.scenarios[i];
    if (s.result.first_oom || !s.saved_vs_recorded || *s.saved_vs_recorded <= 0) continue;
    if (!out.best || s.result.peak_reserved < out.scenarios[*out.best].result.peak_reserved) out.best = i;
  }
  // The smallest capacity for the recorded settings, and for the best setting (both replayed unlimited):
  // two bisections, one per thread.
  const ReplayResult& unlimited_recorded = reuse_base ? base : replays.back();
  std::vector<std::function<CapacitySearch()>> searches;
  searches.emplace_back(
      [&] { return search_capacity(run, "recorded", out.recorded_config, unlimited_recorded); });
  if (out.best) {
    searches.emplace_back([&] {
      const Scenario& b = out.scenarios[*out.best];
      AllocatorConfig c = out.recorded_config;
      apply_setting(c, b.name);
      const ReplayResult unlimited_best = reuse_base ? b.result : run.run(c, kNoLimit, false, false);
      return search_capacity(run, b.name, c, unlimited_best);
    });
  }
  out.capacity_searches = detail::run_parallel(searches, threads, stop_all);
  progress.report(1.0, "replaying");
  return out;
}

}  // namespace oomscope::allocator
