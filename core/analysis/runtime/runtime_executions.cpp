#include "core/analysis/runtime/runtime_executions.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/analysis/runtime/detail/runtime_launches.h"
#include "core/analysis/runtime/runtime_allocators.h"

namespace oomscope::analysis {

using capture::ExecutionKind;
using capture::ExecutionSpan;

const char* to_string(ModuleChoice choice) noexcept { return enum_name(kModuleChoiceNames, choice, "?"); }

namespace {

using LineKey = std::pair<std::uint32_t, std::uint32_t>;  // plane, line

std::int64_t end_of(const ExecutionSpan& s) { return s.time_ps + s.duration_ps; }

// The execution of a span; its module name is left empty when the span's name is not a module's (an
// ExecuteHelper's).
RuntimeExecution from_span(const ExecutionSpan& s, bool named = true) {
  RuntimeExecution e;
  if (named) e.module = s.name;
  e.program_id = s.program_id;
  e.start_ps = s.time_ps;
  e.end_ps = end_of(s);
  e.plane = s.plane;
  e.line = s.line;
  return e;
}

using SpansByLine = std::map<LineKey, std::vector<const ExecutionSpan*>>;

// ExecuteHelper, XLA module and PjitFunction spans per line, each list sorted by start (one pass over the
// spans, which a big capture holds by the million).
struct HostSpans {
  SpansByLine helpers, modules, pjits;
};

HostSpans host_spans_by_line(std::span<const ExecutionSpan> spans) {
  HostSpans out;
  LineKey last_key{~0u, ~0u};
  ExecutionKind last_kind = ExecutionKind::DeviceModule;
  std::vector<const ExecutionSpan*>* last = nullptr;
  for (const ExecutionSpan& s : spans) {
    SpansByLine* into = s.kind == ExecutionKind::ExecuteHelper  ? &out.helpers
                        : s.kind == ExecutionKind::XlaModule    ? &out.modules
                        : s.kind == ExecutionKind::PjitFunction ? &out.pjits
                                                                : nullptr;
    if (!into) continue;
    const LineKey key{s.plane, s.line};
    if (!last || key != last_key || s.kind != last_kind) {
      last = &(*into)[key];
      last_key = key;
      last_kind = s.kind;
    }
    last->push_back(&s);
  }
  const auto earlier = [](const ExecutionSpan* a, const ExecutionSpan* b) { return a->time_ps < b->time_ps; };
  for (SpansByLine* kind : {&out.helpers, &out.modules, &out.pjits})
    for (auto& [key, list] : *kind)
      if (!std::is_sorted(list.begin(), list.end(), earlier))
        std::stable_sort(list.begin(), list.end(), earlier);
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
  auto [helpers, modules, pjits] = host_spans_by_line(spans);
  std::vector<RuntimeExecution> out;
  std::size_t most = 0;
  for (const auto& [key, list] : helpers) most += list.size();
  for (const auto& [key, list] : modules) most += list.size();
  out.reserve(most);
  for (auto& [key, list] : helpers) {
    // Some clients nest an Execute inside an Execute of the same kind: one execution, not two.
    std::vector<const ExecutionSpan*> top;
    for (const ExecutionSpan* h : list)
      if (top.empty() || h->time_ps > end_of(*top.back())) top.push_back(h);
    list = std::move(top);
    const auto& inner = modules[key];
    const auto& outer = pjits[key];
    // Both lists are sorted by start, so the first module span at or after each helper's start is found by
    // walking on from the previous helper's (a binary search per helper costs a cache miss per step).
    auto it = inner.begin();
    for (const ExecutionSpan* h : list) {
      RuntimeExecution e = from_span(*h, false);
      while (it != inner.end() && (*it)->time_ps < h->time_ps) ++it;
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
    auto it = outer.begin();           // the first helper starting after the module span (walked on)
    for (const ExecutionSpan* m : list) {
      while (it != outer.end() && (*it)->time_ps <= m->time_ps) ++it;
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
  {
    // Stable by start: the order is found on (start, position) pairs, then each execution moves once.
    std::vector<std::pair<std::int64_t, std::size_t>> order(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) order[i] = {out[i].start_ps, i};
    if (!std::is_sorted(order.begin(), order.end())) {
      std::sort(order.begin(), order.end());
      std::vector<RuntimeExecution> sorted;
      sorted.reserve(out.size());
      for (const auto& [start, i] : order) sorted.push_back(std::move(out[i]));
      out = std::move(sorted);
    }
  }
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

}  // namespace oomscope::analysis
