#include "core/analysis/runtime_executions.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/analysis/runtime_allocators.h"
#include "core/analysis/runtime_launches.h"

namespace oomscope::analysis {

using capture::ExecutionKind;
using capture::ExecutionSpan;

const char* to_string(ModuleChoice choice) noexcept { return enum_name(kModuleChoiceNames, choice, "?"); }

namespace {

using LineKey = std::pair<std::uint32_t, std::uint32_t>;  // plane, line

std::int64_t end_of(const ExecutionSpan& s) { return s.time_ps + s.duration_ps; }

RuntimeExecution from_span(const ExecutionSpan& s) {
  RuntimeExecution e;
  e.module = s.name;
  e.program_id = s.program_id;
  e.start_ps = s.time_ps;
  e.end_ps = end_of(s);
  e.plane = s.plane;
  e.line = s.line;
  return e;
}

// Spans of one kind per line, sorted by start.
std::map<LineKey, std::vector<const ExecutionSpan*>> by_line(std::span<const ExecutionSpan> spans,
                                                             ExecutionKind kind) {
  std::map<LineKey, std::vector<const ExecutionSpan*>> out;
  for (const ExecutionSpan& s : spans)
    if (s.kind == kind) out[{s.plane, s.line}].push_back(&s);
  for (auto& [key, list] : out)
    std::stable_sort(list.begin(), list.end(),
                     [](const ExecutionSpan* a, const ExecutionSpan* b) { return a->time_ps < b->time_ps; });
  return out;
}

// Host executions: ExecuteHelper spans named by their inner module span, and orphan module spans.
// The innermost span of `sorted` (by start) enclosing [start, end], or null. Enclosing spans start shortly
// before on the same thread, so only a few candidates back from `start` are looked at.
const ExecutionSpan* enclosing(const std::vector<const ExecutionSpan*>& sorted, std::int64_t start,
                               std::int64_t end) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), start,
                             [](std::int64_t t, const ExecutionSpan* s) { return t < s->time_ps; });
  for (int looked = 0; it != sorted.begin() && looked < 16; ++looked) {
    --it;
    if (end_of(**it) >= end) return *it;
  }
  return nullptr;
}

// Host executions: ExecuteHelper spans named by their inner module span, and orphan module spans.
std::vector<RuntimeExecution> host_executions(std::span<const ExecutionSpan> spans) {
  auto helpers = by_line(spans, ExecutionKind::ExecuteHelper);
  auto modules = by_line(spans, ExecutionKind::XlaModule);
  auto pjits = by_line(spans, ExecutionKind::PjitFunction);
  std::vector<RuntimeExecution> out;
  for (auto& [key, list] : helpers) {
    // Some clients nest an Execute inside an Execute of the same kind: one execution, not two.
    std::vector<const ExecutionSpan*> top;
    for (const ExecutionSpan* h : list)
      if (top.empty() || h->time_ps > end_of(*top.back())) top.push_back(h);
    list = std::move(top);
    const auto& inner = modules[key];
    const auto& outer = pjits[key];
    for (const ExecutionSpan* h : list) {
      RuntimeExecution e = from_span(*h);
      e.module.clear();
      auto it = std::lower_bound(inner.begin(), inner.end(), h->time_ps,
                                 [](const ExecutionSpan* s, std::int64_t t) { return s->time_ps < t; });
      if (it != inner.end() && (*it)->time_ps <= end_of(*h)) {
        e.module = (*it)->name;
        e.has_module_span = true;
        if (!e.program_id) e.program_id = (*it)->program_id;
      } else if (const ExecutionSpan* pjit = enclosing(outer, h->time_ps, end_of(*h))) {
        // Failed before its thunks were enqueued: only the Python function names it.
        e.module = "jit_" + pjit->name;
        e.module_from_pjit = true;
      }
      out.push_back(std::move(e));
    }
  }
  for (auto& [key, list] : modules) {
    const auto& outer = helpers[key];  // top-level helpers, sorted, not overlapping
    for (const ExecutionSpan* m : list) {
      auto it = std::upper_bound(outer.begin(), outer.end(), m->time_ps,
                                 [](std::int64_t t, const ExecutionSpan* h) { return t < h->time_ps; });
      if (it != outer.begin() && m->time_ps <= end_of(**std::prev(it))) continue;  // inside an ExecuteHelper
      RuntimeExecution e = from_span(*m);
      e.has_module_span = true;
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<RuntimeExecution> device_module_executions(std::span<const ExecutionSpan> spans) {
  std::optional<std::uint32_t> plane;
  for (const ExecutionSpan& s : spans)
    if (s.kind == ExecutionKind::DeviceModule && (!plane || s.plane < *plane)) plane = s.plane;
  std::vector<RuntimeExecution> out;
  if (!plane) return out;
  for (const ExecutionSpan& s : spans) {
    if (s.kind != ExecutionKind::DeviceModule || s.plane != *plane) continue;
    RuntimeExecution e = from_span(s);
    e.has_module_span = true;
    e.launched = true;  // the device ran it
    out.push_back(std::move(e));
  }
  return out;
}

// The allocator of each host execution: that of the first allocation inside its span on its own line.
void find_allocators(const ExecutionInput& in, std::vector<RuntimeExecution>& out) {
  for (RuntimeExecution& e : out) {
    if (e.plane != in.host_plane) continue;
    auto it = std::lower_bound(in.memory.begin(), in.memory.end(), e.start_ps,
                               [](const capture::MemoryEvent& m, std::int64_t t) { return m.time_ps < t; });
    for (; it != in.memory.end() && it->time_ps <= e.end_ps; ++it)
      if (it->line == e.line && it->kind == capture::MemoryEventKind::Allocation) {
        e.allocator = it->allocator;
        break;
      }
  }
}

}  // namespace

std::optional<std::uint32_t> device_plane_of_allocator(std::string_view allocator,
                                                       std::span<const std::string> plane_names) {
  // The first number in the name: GPU_0_bfc -> 0, TPU_3 -> 3.
  const auto digit = allocator.find_first_of("0123456789");
  if (digit == std::string_view::npos || allocator.find("host") != std::string_view::npos)
    return std::nullopt;
  const auto end = allocator.find_first_not_of("0123456789", digit);
  const std::string ordinal(allocator.substr(digit, end == std::string_view::npos ? end : end - digit));
  const std::string kind = allocator.starts_with("TPU") ? "TPU" : allocator.starts_with("GPU") ? "GPU" : "";
  for (std::size_t p = 0; p < plane_names.size(); ++p) {
    const std::string_view name = plane_names[p];
    if (!name.starts_with("/device:") || !name.ends_with(":" + ordinal)) continue;
    if (kind.empty() || name.starts_with("/device:" + kind + ":")) return static_cast<std::uint32_t>(p);
  }
  return std::nullopt;
}

bool execution_of(const RuntimeExecution& e, const ModuleRef& m) {
  if (e.module != m.name) return false;
  return !e.program_id || *e.program_id == m.program_id;
}

std::vector<RuntimeExecution> build_executions(const ExecutionInput& in) {
  std::vector<RuntimeExecution> out = host_executions(in.spans);
  if (out.empty()) out = device_module_executions(in.spans);
  std::stable_sort(out.begin(), out.end(), [](const RuntimeExecution& a, const RuntimeExecution& b) {
    return a.start_ps < b.start_ps;
  });
  find_allocators(in, out);
  match_by_program_id(in, out);

  // Window of each execution for device events: until the next execution of the same module on the same
  // line. The GPU runs behind the host, so a kernel often starts after other modules were already enqueued.
  std::map<std::pair<std::string, LineKey>, std::vector<std::size_t>> lines;
  for (std::size_t i = 0; i < out.size(); ++i)
    lines[{out[i].module, {out[i].plane, out[i].line}}].push_back(i);
  std::vector<std::int64_t> window_end(out.size(), std::numeric_limits<std::int64_t>::max());
  for (const auto& [key, idx] : lines)
    for (std::size_t k = 0; k + 1 < idx.size(); ++k) window_end[idx[k]] = out[idx[k + 1]].start_ps;
  // Also end it at the module's next execution on any line that starts after this one ended (the next step
  // of a multi-device run), so that a program that never launched does not scan the rest of the capture.
  std::map<std::string, std::vector<std::size_t>> by_module;
  for (std::size_t i = 0; i < out.size(); ++i) by_module[out[i].module].push_back(i);
  for (const auto& [name, idx] : by_module)
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const RuntimeExecution& e = out[idx[k]];
      auto next = std::upper_bound(idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), e.end_ps,
                                   [&](std::int64_t t, std::size_t j) { return t < out[j].start_ps; });
      if (next != idx.end()) window_end[idx[k]] = std::min(window_end[idx[k]], out[*next].start_ps);
    }

  // Device evidence: events tagged with a program (sorted by time, used in place).
  const auto& dev = in.device_events;
  auto module_of = [&](const capture::DeviceProgramEvent& d) -> std::string_view {
    return d.module_name != 0 && d.module_name < in.strings.size()
               ? std::string_view(in.strings[d.module_name])
               : std::string_view();
  };
  const bool device_modules_are_executions =
      std::all_of(out.begin(), out.end(), [](const RuntimeExecution& e) { return e.launched.has_value(); });
  // TPU: the device's "XLA Modules" events run on the device clock and start before the host span that
  // enqueued them, so time windows do not work; count instead: the k-th host execution of a program
  // launched when the (first) device plane ran that program at least k times.
  std::map<std::pair<std::string, std::uint64_t>, std::int64_t> device_runs;
  if (!device_modules_are_executions) {
    std::optional<std::uint32_t> plane;
    for (const ExecutionSpan& s : in.spans)
      if (s.kind == ExecutionKind::DeviceModule && (!plane || s.plane < *plane)) plane = s.plane;
    for (const ExecutionSpan& s : in.spans)
      if (s.kind == ExecutionKind::DeviceModule && s.plane == plane)
        ++device_runs[{s.name, s.program_id.value_or(0)}];
  }
  std::map<std::pair<std::string, std::uint64_t>, std::int64_t> host_runs;
  const std::int64_t last_device_ps = dev.empty() ? 0 : dev.back().time_ps;
  // Per module name: how many modules share it, and the newest (largest) program id among them.
  std::map<std::string_view, std::pair<int, std::uint64_t>> newest;
  for (const ModuleRef& m : in.modules) {
    auto& [count, id] = newest[m.name];
    id = count++ == 0 ? m.program_id : std::max(id, m.program_id);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    RuntimeExecution& e = out[i];
    if (!device_runs.empty() && !e.launched) {
      std::optional<std::uint64_t> id = e.program_id;
      if (!id)
        for (const auto& [key, n] : device_runs)
          if (key.first == e.module) id = key.second;
      if (id) {
        e.program_id = id;
        const auto runs = device_runs.find({e.module, *id});
        e.launched = runs != device_runs.end() && ++host_runs[{e.module, *id}] <= runs->second;
      }
    } else if (!dev.empty() && !e.launched) {
      auto it = std::lower_bound(
          dev.begin(), dev.end(), e.start_ps,
          [](const capture::DeviceProgramEvent& d, std::int64_t t) { return d.time_ps < t; });
      bool found = false;
      for (; it != dev.end() && it->time_ps < window_end[i]; ++it) {
        const bool same_name = !e.module.empty() && module_of(*it) == e.module;
        const bool same_id = e.program_id && it->program_id != 0 && it->program_id == *e.program_id;
        if (same_id || (same_name && (!e.program_id || it->program_id == 0))) {
          if (!e.program_id && it->program_id != 0) e.program_id = it->program_id;
          found = true;
          break;
        }
      }
      e.launched = found;
      // Enqueued thunks but no device event after it at all: the device trace stopped (buffer full, CUPTI
      // window), so nothing can be said. Without the module span the thunks were never enqueued.
      if (!found && e.has_module_span && e.start_ps > last_device_ps) e.launched.reset();
    }
    if (!e.program_id && !e.module.empty()) {
      if (auto it = newest.find(e.module); it != newest.end()) {
        e.program_id = it->second.second;
        e.program_id_inferred = it->second.first > 1;
      }
    }
    if (e.plane == in.host_plane) {
      auto r = std::lower_bound(in.retries.begin(), in.retries.end(), e.start_ps,
                                [](const capture::RetryEvent& x, std::int64_t t) { return x.time_ps < t; });
      for (; r != in.retries.end() && r->time_ps <= e.end_ps; ++r)
        if (r->line == e.line) e.retry_wait_ps += r->duration_ps;
    }
  }
  std::map<std::string_view, int> same_name;
  for (const ModuleRef& m : in.modules) ++same_name[m.name];
  std::map<std::tuple<std::string, std::uint64_t, LineKey>, int> numbers;
  for (RuntimeExecution& e : out) {
    e.number = ++numbers[{e.module, e.program_id.value_or(0), {e.plane, e.line}}];
    const auto found = same_name.find(e.module);
    const int shared = found == same_name.end() ? 0 : found->second;
    e.label = e.module.empty() ? std::string("an unnamed module") : e.module;
    if (shared > 1 && e.program_id) e.label += "(" + std::to_string(*e.program_id) + ")";
  }
  return out;
}

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
    if (s.kind == ExecutionKind::DeviceModule && s.name == module.name &&
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
