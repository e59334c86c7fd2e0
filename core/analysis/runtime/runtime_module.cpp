// The module a report analyses: the spec's default choice among the modules, the device allocators a
// module's program ran on, and its executions on its main allocator (runtime_executions.h).

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/analysis/runtime/runtime_allocators.h"
#include "core/analysis/runtime/runtime_executions.h"

namespace oomscope::analysis {

ModuleSelection choose_default_module(std::span<const ModuleRef> modules,
                                      std::span<const RuntimeExecution> executions) {
  ModuleSelection sel;
  if (modules.empty()) return sel;
  std::map<std::string_view, std::vector<const RuntimeExecution*>> by_name;  // in time order
  for (const RuntimeExecution& e : executions) by_name[e.module].push_back(&e);
  static const std::vector<const RuntimeExecution*> none;
  auto runs_of = [&](const ModuleRef& m) -> const std::vector<const RuntimeExecution*>& {
    auto it = by_name.find(m.name);
    return it == by_name.end() ? none : it->second;
  };
  std::optional<std::int64_t> latest_failure;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    const RuntimeExecution* last = nullptr;
    bool earlier_launched = false;
    bool earlier_module_span = false;
    for (const RuntimeExecution* run : runs_of(modules[m])) {
      const RuntimeExecution& e = *run;
      if (!execution_of(e, modules[m])) continue;
      if (last && last->launched.value_or(false)) earlier_launched = true;
      if (last && last->has_module_span) earlier_module_span = true;
      last = &e;
    }
    if (!last || last->launched != false) continue;
    // A kernel-less trivial module also "never launches": ask for a sign that this one failed.
    const bool evidence =
        last->retry_wait_ps > 0 || earlier_launched || (!last->has_module_span && earlier_module_span);
    if (evidence && (!latest_failure || last->start_ps > *latest_failure)) {
      latest_failure = last->start_ps;
      sel = {m, ModuleChoice::LastNeverStarted};
    }
  }
  if (sel.module) return sel;
  auto largest = [&](bool executed_only) -> std::optional<std::size_t> {
    std::optional<std::size_t> best;
    for (std::size_t m = 0; m < modules.size(); ++m) {
      const auto& runs = runs_of(modules[m]);
      if (executed_only && std::none_of(runs.begin(), runs.end(), [&](const RuntimeExecution* e) {
            return execution_of(*e, modules[m]);
          }))
        continue;
      if (!best || modules[m].size_bytes > modules[*best].size_bytes) best = m;
    }
    return best;
  };
  if (auto m = largest(true)) return {m, ModuleChoice::LargestExecuted};
  return {largest(false), ModuleChoice::LargestModule};
}

std::vector<std::uint32_t> module_device_allocators(const ExecutionInput& in, const ModuleRef& module) {
  std::set<std::uint32_t> planes;
  for (const capture::ExecutionSpan& s : in.spans)
    if (s.kind == capture::ExecutionKind::DeviceModule && s.name == module.name &&
        (!s.program_id || *s.program_id == module.program_id))
      planes.insert(s.plane);
  std::vector<std::uint32_t> out;
  for (std::size_t a = 0; a < in.allocator_names.size(); ++a)
    if (auto plane = device_plane_of_allocator(in.allocator_names[a], in.plane_names);
        plane && planes.count(*plane))
      out.push_back(static_cast<std::uint32_t>(a));
  return out;
}

ModuleRuntime analyze_module_executions(const ModuleRef& module, std::span<const RuntimeExecution> executions,
                                        std::span<const capture::MemoryEvent> memory,
                                        std::span<const std::uint32_t> device_allocators,
                                        std::span<const std::string> allocator_names) {
  ModuleRuntime r;
  r.module = module.name;
  r.program_id = module.program_id;
  // The devices it ran on: those whose device planes ran the program (TPU "XLA Modules"), and those its
  // executions allocated from. Host-memory allocators count only when nothing else does.
  std::set<std::uint32_t> exec_allocators;
  for (const RuntimeExecution& e : executions)
    if (execution_of(e, module) && e.allocator) exec_allocators.insert(*e.allocator);
  std::set<std::uint32_t> candidates(device_allocators.begin(), device_allocators.end());
  candidates.insert(exec_allocators.begin(), exec_allocators.end());
  auto is_host = [&](std::uint32_t a) {
    return a < allocator_names.size() && allocator_names[a].find("host") != std::string::npos;
  };
  if (std::any_of(candidates.begin(), candidates.end(), [&](std::uint32_t a) { return !is_host(a); }))
    std::erase_if(candidates, is_host);
  // Executions per device (each device on its own thread, GPU style) when they allocate from several
  // allocators; else each execution runs on all the devices at once (one TPU Execute for every chip).
  const bool per_device = exec_allocators.size() > 1;
  for (std::uint32_t a : candidates) {
    std::optional<std::int64_t> first, last;  // starts of its first and last execution on device a
    for (const RuntimeExecution& e : executions)
      if (execution_of(e, module) && (!per_device || e.allocator == a)) {
        first = std::min(first.value_or(e.start_ps), e.start_ps);
        last = std::max(last.value_or(e.start_ps), e.start_ps);
      }
    if (!first) continue;
    r.devices.push_back({a, bytes_in_use_before(memory, a, *first), bytes_in_use_before(memory, a, *last)});
  }
  if (!r.devices.empty()) {
    // Several devices: the one with the most in use at the start of its last execution (the first such).
    r.allocator = std::max_element(r.devices.begin(), r.devices.end(), [](const auto& x, const auto& y) {
                    return x.bytes_in_use_at_last_start < y.bytes_in_use_at_last_start;
                  })->allocator;
  } else if (!memory.empty()) {
    r.allocator = memory.front().allocator;
  }
  if (r.devices.size() < 2) r.devices.clear();
  for (const RuntimeExecution& e : executions) {
    if (!execution_of(e, module)) continue;
    if (per_device && e.allocator && r.allocator && *e.allocator != *r.allocator)
      continue;  // another device's copy
    RuntimeExecution copy = e;
    if (r.allocator) copy.bytes_in_use_at_start = bytes_in_use_before(memory, *r.allocator, e.start_ps);
    r.executions.push_back(std::move(copy));
  }
  // Multi-device runs execute once per device, each device on its own thread: an execution that allocated
  // nothing is kept only on a line where the main allocator's executions run, so that "per execution" means
  // per step, not per device.
  if (per_device) {
    std::vector<std::uint32_t> lines;
    for (const RuntimeExecution& e : r.executions)
      if (e.allocator) lines.push_back(e.line);
    std::erase_if(r.executions, [&](const RuntimeExecution& e) {
      return !e.allocator && std::find(lines.begin(), lines.end(), e.line) == lines.end();
    });
  }
  const auto& ex = r.executions;
  for (std::size_t i = 1; i < ex.size(); ++i)
    r.growth_steps.push_back(ex[i].bytes_in_use_at_start - ex[i - 1].bytes_in_use_at_start);
  if (ex.size() >= 2)
    r.growth_per_execution = (ex.back().bytes_in_use_at_start - ex.front().bytes_in_use_at_start) /
                             static_cast<std::int64_t>(ex.size() - 1);
  r.growth_consistent = ex.size() >= 3 && std::all_of(r.growth_steps.begin(), r.growth_steps.end(),
                                                      [](std::int64_t d) { return d > 0; });
  for (const RuntimeExecution& e : ex) {
    if (e.launched == false) ++r.never_launched;
    if (!e.launched) ++r.launch_unknown;
  }
  r.last_never_launched = !ex.empty() && ex.back().launched == false;
  return r;
}

}  // namespace oomscope::analysis
