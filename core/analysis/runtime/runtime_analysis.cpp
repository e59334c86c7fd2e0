#include "core/analysis/runtime/runtime_analysis.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/analysis/runtime/runtime_allocators.h"

namespace oomscope::analysis {

namespace {

RetrySummary summarize_retries(std::span<const capture::RetryEvent> retries) {
  RetrySummary s;
  for (const capture::RetryEvent& r : retries) {
    ++s.count;
    s.total_ps += r.duration_ps;
    if (r.duration_ps > s.longest_ps) {
      s.longest_ps = r.duration_ps;
      s.longest_time_ps = r.time_ps;
    }
  }
  return s;
}

}  // namespace

RuntimeAnalysis analyze_runtime(const RuntimeInput& in, const RuntimeOptions& options) {
  RuntimeAnalysis out;
  const ExecutionInput& ex = in.executions;
  const bool windowed = options.time_window.has_value();
  out.time_window = options.time_window;
  out.allocators =
      analyze_allocators(windowed ? in.window_memory : ex.memory, in.allocator_names, options.series_points);
  out.retries = summarize_retries(windowed ? in.window_retries : ex.retries);
  out.has_device_program_events =
      !ex.device_events.empty() ||
      std::any_of(ex.spans.begin(), ex.spans.end(), [](const capture::ExecutionSpan& s) {
        return s.kind == capture::ExecutionKind::DeviceModule;
      });
  if (!out.has_device_program_events && !ex.spans.empty())
    out.notes.push_back(
        "no device event names a program (CUPTI/ROCTracer data missing): whether an execution "
        "launched a kernel cannot be told");

  // Executions are built from the whole capture (numbers, launches and program ids as without a window) and
  // kept in out.executions; only those starting inside the window are counted and analysed.
  if (options.executions) {
    out.executions = options.executions;
  } else if (!in.whole_memory.empty()) {
    ExecutionInput whole = ex;
    whole.memory = in.whole_memory;
    out.executions = std::make_shared<const std::vector<RuntimeExecution>>(build_executions(whole));
  } else {
    out.executions = std::make_shared<const std::vector<RuntimeExecution>>(build_executions(ex));
  }
  const std::vector<RuntimeExecution>& all_executions = *out.executions;
  std::vector<RuntimeExecution> executions;
  for (const RuntimeExecution& e : all_executions)
    if (!windowed || (e.start_ps >= options.time_window->first && e.start_ps <= options.time_window->second))
      executions.push_back(e);
  out.executions_total = static_cast<std::int64_t>(executions.size());

  out.executions_per_module.assign(ex.modules.size(), 0);
  out.executions_by_program_id.assign(ex.modules.size(), 0);
  out.executions_ambiguous.assign(ex.modules.size(), 0);
  {
    std::map<std::string_view, std::vector<std::size_t>> by_name;
    for (std::size_t i = 0; i < ex.modules.size(); ++i) by_name[ex.modules[i].name].push_back(i);
    for (const RuntimeExecution& e : executions)
      if (auto it = by_name.find(e.module); it != by_name.end())
        for (std::size_t i : it->second)
          if (execution_of(e, ex.modules[i])) {
            ++out.executions_per_module[i];
            if (e.matched_by_program_id) ++out.executions_by_program_id[i];
            if (!e.ambiguous_programs.empty()) ++out.executions_ambiguous[i];
          }
  }
  // Executions whose window held launches of several programs and whose own device is unknown.
  {
    std::map<std::string, std::pair<int, std::set<std::uint64_t>>> ambiguous;  // label -> count, programs
    for (const RuntimeExecution& e : executions)
      if (!e.ambiguous_programs.empty()) {
        auto& [n, ids] = ambiguous[e.label];
        ++n;
        ids.insert(e.ambiguous_programs.begin(), e.ambiguous_programs.end());
      }
    for (const auto& [label, entry] : ambiguous) {
      std::string ids;
      for (std::uint64_t id : entry.second) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
      std::string note = label;
      note += ": " + std::to_string(entry.first);
      note += " execution(s) launched kernels in a window where launches name several programs (program ids ";
      note += ids;
      note += ") and its own device is unknown (it allocated nothing); matched by name";
      out.notes.push_back(std::move(note));
    }
  }

  const ModuleSelection by_default = choose_default_module(ex.modules, executions);
  out.default_module = by_default.module;
  out.default_choice = by_default.choice;
  ModuleSelection sel;
  if (options.module && *options.module < ex.modules.size()) {
    sel = {options.module, ModuleChoice::UserSelected};
  } else if (!options.module_candidates.empty()) {
    std::size_t best = options.module_candidates.front();
    for (std::size_t i : options.module_candidates)
      if (i < ex.modules.size() &&
          std::pair(out.executions_per_module[i], ex.modules[i].size_bytes) >
              std::pair(out.executions_per_module[best], ex.modules[best].size_bytes))
        best = i;
    sel = {best, ModuleChoice::UserSelected};
  } else {
    sel = by_default;
  }
  out.choice = sel.choice;
  if (!sel.module) return out;

  ModuleRuntime mod =
      analyze_module_executions(ex.modules[*sel.module], executions, ex.memory,
                                module_device_allocators(ex, ex.modules[*sel.module]), in.allocator_names);
  const auto& runs = mod.executions;
  if (runs.size() >= 2) {
    const RuntimeExecution& before = runs[runs.size() - 2];
    mod.between_start_ps = before.end_ps;
    mod.between_end_ps = runs.back().start_ps;
    auto names =
        host_events_between(in.host, mod.between_start_ps, mod.between_end_ps, mod.host_events_between_total);
    mod.host_event_names_between = static_cast<std::int64_t>(names.size());
    if (names.size() > options.top) names.resize(options.top);
    mod.host_events_between = std::move(names);
  }
  if (!runs.empty() && mod.allocator) {
    const std::int64_t t = runs.back().start_ps;
    const std::vector<std::size_t> live = live_allocations_before(ex.memory, *mod.allocator, t);
    mod.live_at_last_start_bytes = bytes_in_use_before(ex.memory, *mod.allocator, t);
    auto groups = group_live_by_host_event(ex.memory, live, all_executions, ex.host_plane, in.host,
                                           mod.live_at_last_start_bytes);
    mod.live_at_last_start_groups = static_cast<std::int64_t>(groups.size());
    if (groups.size() > options.top) groups.resize(options.top);
    mod.live_at_last_start = std::move(groups);
  }
  if (std::any_of(runs.begin(), runs.end(),
                  [](const RuntimeExecution& e) { return e.module_from_pjit && e.launched != true; }))
    out.notes.push_back(
        "an execution that never reached its XLA GPU module span is named after its Python "
        "function (jit_<function>)");
  if (std::any_of(runs.begin(), runs.end(), [](const RuntimeExecution& e) { return e.program_id_inferred; }))
    out.notes.push_back("several modules share the name " + mod.module +
                        "; executions without a device event were matched to the newest program id");
  if (!runs.empty() && mod.allocator && *mod.allocator < out.allocators.size()) {
    const AllocatorRuntime& a = out.allocators[*mod.allocator];
    // Compilation and autotuning run before the first execution of anything.
    if (a.allocations > 0 && a.peak_time_ps < all_executions.front().start_ps)
      out.notes.push_back(a.name +
                          " peaked before the first execution in the capture: a peak before the first "
                          "execution is compile/autotune time, not the step");
  }
  if (mod.launch_unknown > 0 && out.has_device_program_events)
    out.notes.push_back(std::to_string(mod.launch_unknown) + " execution(s) of " + mod.module +
                        " started after the last device event of the capture: the device trace ended (buffer "
                        "full or CUPTI window), so whether they launched is unknown");
  out.module = std::move(mod);
  return out;
}

namespace {

// The part of a time-sorted table whose events start in [first, last].
template <typename T>
std::span<const T> in_window(const std::vector<T>& table, const RuntimeOptions& options) {
  if (!options.time_window) return table;
  const auto [first, last] = *options.time_window;
  const auto lo = std::lower_bound(table.begin(), table.end(), first,
                                   [](const T& e, std::int64_t t) { return e.time_ps < t; });
  const auto hi =
      std::upper_bound(lo, table.end(), last, [](std::int64_t t, const T& e) { return t < e.time_ps; });
  return std::span<const T>(table.data() + (lo - table.begin()), std::size_t(hi - lo));
}

}  // namespace

RuntimeAnalysis analyze_runtime(const capture::Capture& capture, std::span<const ModuleRef> modules,
                                const RuntimeOptions& options) {
  RuntimeInput in;
  for (const capture::AllocatorSummary& a : capture.allocators()) in.allocator_names.push_back(a.name);
  for (const capture::Plane& p : capture.planes()) in.plane_names.push_back(p.name);
  ExecutionInput& ex = in.executions;
  ex.allocator_names = in.allocator_names;
  ex.plane_names = in.plane_names;
  ex.spans = capture.executions();
  ex.device_events = capture.device_program_events();
  ex.launches = capture.launch_events();
  ex.strings = capture.strings();
  ex.memory = capture.memory_events();
  ex.retries = capture.allocator_retries();
  if (options.time_window) {
    in.whole_memory = capture.memory_events();
    in.window_memory = in_window(capture.memory_events(), options);
    in.window_retries = in_window(capture.allocator_retries(), options);
    // Events after the window cannot be live at the start of an execution inside it.
    ex.memory =
        ex.memory.first(std::size_t(in.window_memory.data() + in.window_memory.size() - ex.memory.data()));
  }
  ex.modules = modules;
  in.host = host_timeline(capture, ex.host_plane);
  return analyze_runtime(in, options);
}

}  // namespace oomscope::analysis
