// Host executions matched to the program they launched (runtime_launches.h).

#include "core/analysis/runtime/detail/runtime_launches.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace oomscope::analysis {

CorrelationIndex::CorrelationIndex(std::span<const capture::DeviceProgramEvent> device) {
  for (std::size_t i = 0; i < device.size(); ++i)
    if (device[i].correlation_id != 0)
      entries_.push_back({device[i].correlation_id, std::uint32_t(i), device[i].plane, device[i].program_id});
  std::sort(entries_.begin(), entries_.end(), [](const CorrelationEntry& a, const CorrelationEntry& b) {
    return a.correlation_id != b.correlation_id ? a.correlation_id < b.correlation_id : a.order < b.order;
  });
}

std::span<const CorrelationEntry> CorrelationIndex::of(std::uint64_t correlation_id,
                                                       std::size_t& hint) const {
  const std::size_t n = entries_.size();
  const auto id_at = [&](std::size_t i) { return entries_[i].correlation_id; };
  std::size_t first = 0, last = n;  // the first entry with id >= correlation_id is in [first, last]
  if (hint < n) {
    std::size_t step = 1;
    if (id_at(hint) < correlation_id) {
      std::size_t below = hint;  // id_at(below) < correlation_id
      while (below + step < n && id_at(below + step) < correlation_id) {
        below += step;
        step *= 2;
      }
      first = below + 1;
      last = std::min(below + step, n);
    } else {
      std::size_t above = hint;  // id_at(above) >= correlation_id
      while (above >= step && id_at(above - step) >= correlation_id) {
        above -= step;
        step *= 2;
      }
      first = above >= step ? above - step + 1 : 0;
      last = above;
    }
  }
  const auto lo = std::lower_bound(
      entries_.begin() + std::ptrdiff_t(first), entries_.begin() + std::ptrdiff_t(last), correlation_id,
      [](const CorrelationEntry& e, std::uint64_t id) { return e.correlation_id < id; });
  hint = std::size_t(lo - entries_.begin());
  auto hi = lo;
  while (hi != entries_.end() && hi->correlation_id == correlation_id) ++hi;
  return {entries_.data() + (lo - entries_.begin()), std::size_t(hi - lo)};
}

std::optional<std::uint32_t> CorrelationIndex::single_plane(std::span<const CorrelationEntry> found) {
  if (found.empty()) return std::nullopt;
  for (const CorrelationEntry& e : found)
    if (e.plane != found.front().plane) return std::nullopt;
  return found.front().plane;
}

namespace {

// Device plane of each launch's device_id. Tracers number devices their own way (roctracer: 47645..), so
// the plane is learned from the launches whose correlation_id joins a device event on exactly one plane
// (the most frequent plane per device_id); failing that, a plane named "/device:<kind>:<device_id>".
std::map<std::int64_t, std::uint32_t> device_planes_of_launches(const ExecutionInput& in,
                                                                const CorrelationIndex& index) {
  std::map<std::int64_t, std::uint32_t> out;
  if (in.plane_names.empty()) return out;
  std::map<std::int64_t, std::map<std::uint32_t, int>> votes;
  std::size_t hint = 0;
  for (const capture::LaunchEvent& l : in.launches) {
    if (!l.device_id) continue;
    auto& planes = votes[*l.device_id];
    if (auto plane = CorrelationIndex::single_plane(index.of(l.correlation_id, hint))) ++planes[*plane];
  }
  for (const auto& [device, planes] : votes) {
    if (!planes.empty()) {
      out[device] = std::max_element(planes.begin(), planes.end(), [](const auto& a, const auto& b) {
                      return a.second < b.second;
                    })->first;
      continue;
    }
    for (std::size_t p = 0; p < in.plane_names.size(); ++p) {
      const std::string_view name = in.plane_names[p];
      const auto colon = name.rfind(':');
      if (name.starts_with("/device:") && colon != std::string_view::npos &&
          name.substr(colon + 1) == std::to_string(device))
        out[device] = static_cast<std::uint32_t>(p);
    }
  }
  return out;
}

// What one launch tells: the plane it went to (when known) and the program of a module of the report it
// ran (0 = none).
struct ResolvedLaunch {
  std::optional<std::uint32_t> plane;
  std::uint64_t program_id = 0;
};

}  // namespace

void match_by_program_id(const ExecutionInput& in, std::vector<RuntimeExecution>& out) {
  if (in.launches.empty()) return;
  const CorrelationIndex index(in.device_events);
  const std::map<std::int64_t, std::uint32_t> launch_plane = device_planes_of_launches(in, index);
  std::unordered_map<std::uint64_t, const ModuleRef*> module_of_id;
  for (const ModuleRef& m : in.modules) module_of_id.emplace(m.program_id, &m);
  std::vector<ResolvedLaunch> resolved(in.launches.size());
  std::size_t hint = 0;
  for (std::size_t i = 0; i < in.launches.size(); ++i) {
    const capture::LaunchEvent& l = in.launches[i];
    ResolvedLaunch& r = resolved[i];
    if (l.device_id)
      if (auto p = launch_plane.find(*l.device_id); p != launch_plane.end()) r.plane = p->second;
    std::optional<std::uint64_t> id = l.program_id;
    if (!id || *id == 0) {
      // The earliest device event of the id with a program (on the launch's plane when known).
      for (const CorrelationEntry& e : index.of(l.correlation_id, hint))
        if (e.program_id != 0 && (!r.plane || e.plane == *r.plane)) {
          id = e.program_id;
          break;
        }
    }
    if (id && *id != 0 && module_of_id.count(*id)) r.program_id = *id;
  }
  std::unordered_map<std::uint32_t, std::optional<std::uint32_t>> plane_of_allocator;
  for (RuntimeExecution& e : out) {
    if (e.plane != in.host_plane) continue;
    std::optional<std::uint32_t> own_plane;
    if (e.allocator && *e.allocator < in.allocator_names.size()) {
      auto [it, fresh] = plane_of_allocator.try_emplace(*e.allocator);
      if (fresh) it->second = device_plane_of_allocator(in.allocator_names[*e.allocator], in.plane_names);
      own_plane = it->second;
    }
    std::set<std::uint64_t> programs;
    const auto from =
        std::lower_bound(in.launches.begin(), in.launches.end(), e.start_ps,
                         [](const capture::LaunchEvent& l, std::int64_t t) { return l.time_ps < t; });
    for (auto i = std::size_t(from - in.launches.begin());
         i < in.launches.size() && in.launches[i].time_ps <= e.end_ps; ++i) {
      const ResolvedLaunch& r = resolved[i];
      if (own_plane && r.plane && *r.plane != *own_plane) continue;  // another device's launch
      if (r.program_id != 0) programs.insert(r.program_id);
    }
    if (programs.empty()) continue;
    if (programs.size() > 1) {
      e.ambiguous_programs.assign(programs.begin(), programs.end());
      continue;
    }
    const std::uint64_t id = *programs.begin();
    const ModuleRef& m = *module_of_id.at(id);
    if (!e.module.empty() && e.module != m.name)
      continue;  // the span names another module: keep the span's word
    e.module = m.name;
    e.program_id = id;
    e.matched_by_program_id = true;
    e.module_from_pjit = false;
    e.launched = true;  // a driver-API launch of its program inside its span
  }
}

}  // namespace oomscope::analysis
