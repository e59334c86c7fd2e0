#include "core/analysis/runtime/runtime_attribution.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>

namespace oomscope::analysis {

using capture::EventRecord;

namespace {

bool is_allocator_event(std::string_view name) {
  return name == "MemoryAllocation" || name == "MemoryDeallocation";
}

// Positions of a line's events in start order (identity when already sorted).
std::vector<std::uint32_t> start_order(std::span<const EventRecord> events) {
  std::vector<std::uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0u);
  const bool sorted =
      std::is_sorted(events.begin(), events.end(),
                     [](const EventRecord& a, const EventRecord& b) { return a.start_ps() < b.start_ps(); });
  if (!sorted)
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return events[a].start_ps() < events[b].start_ps();
    });
  return order;
}

// Innermost span on one line enclosing each query time, by one sweep with a stack of open spans.
// queries: (time, slot) sorted by time; result[slot] = metadata id or -1.
void enclosing_spans(std::uint32_t line, const HostTimeline& timeline,
                     std::vector<std::pair<std::int64_t, std::size_t>>& queries,
                     std::vector<std::int64_t>& result) {
  const std::span<const EventRecord> events = timeline.lines[line];
  std::sort(queries.begin(), queries.end());
  if (timeline.facts.size() < timeline.lines.size()) timeline.facts.resize(timeline.lines.size());
  HostTimeline::LineFacts& facts = timeline.facts[line];
  if (!facts.known) {
    facts.known = true;
    facts.sorted = std::is_sorted(
        events.begin(), events.end(),
        [](const EventRecord& a, const EventRecord& b) { return a.start_ps() < b.start_ps(); });
    for (const EventRecord& e : events) facts.longest_ps = std::max(facts.longest_ps, e.duration_ps());
  }
  std::vector<std::uint32_t> order;
  std::size_t next = 0;
  if (facts.sorted) {
    // No event starting before this can still be open at the first query.
    if (!queries.empty() && queries.front().first - facts.longest_ps > events.front().start_ps())
      next = std::size_t(
          std::lower_bound(events.begin(), events.end(), queries.front().first - facts.longest_ps,
                           [](const EventRecord& e, std::int64_t t) { return e.start_ps() < t; }) -
          events.begin());
  } else {
    order = start_order(events);
  }
  const auto at = [&](std::size_t k) -> const EventRecord& { return events[facts.sorted ? k : order[k]]; };
  std::vector<const EventRecord*> open;
  auto answer = [&](std::int64_t t, std::size_t slot) {
    std::erase_if(open, [&](const EventRecord* e) { return e->start_ps() + e->duration_ps() < t; });
    const EventRecord* plain = nullptr;
    const EventRecord* python = nullptr;
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      std::string_view n = timeline.name((*it)->metadata_id());
      if (n.starts_with('$')) {
        if (!python) python = *it;
      } else if (!plain) {
        plain = *it;
      }
    }
    const EventRecord* best = plain ? plain : python;
    result[slot] = best ? best->metadata_id() : -1;
  };
  for (const auto& [t, slot] : queries) {
    for (; next < events.size() && at(next).start_ps() <= t; ++next) {
      const EventRecord& e = at(next);
      if (e.duration_ps() <= 0) continue;  // instants (the allocation itself) enclose nothing
      if (e.start_ps() + e.duration_ps() < t) continue;
      std::erase_if(open,
                    [&](const EventRecord* o) { return o->start_ps() + o->duration_ps() < e.start_ps(); });
      open.push_back(&e);
    }
    answer(t, slot);
  }
}

}  // namespace

HostTimeline host_timeline(const capture::Capture& capture, std::uint32_t& host_plane) {
  HostTimeline out;
  const auto& planes = capture.planes();
  for (std::size_t i = 0; i < planes.size(); ++i)
    if (planes[i].name == "/host:CPU") {
      host_plane = static_cast<std::uint32_t>(i);
      const capture::Plane* host = &planes[i];
      for (const capture::Line& line : host->lines) out.lines.emplace_back(line.events);
      out.name = [host](std::int64_t id) { return host->event_name(id); };
      return out;
    }
  out.name = [](std::int64_t) { return std::string_view(); };
  return out;
}

std::vector<NameCount> host_events_between(const HostTimeline& timeline, std::int64_t t0, std::int64_t t1,
                                           std::int64_t& total) {
  total = 0;
  std::unordered_map<std::int64_t, std::int64_t> by_id;
  for (const auto& line : timeline.lines) {
    auto it = std::lower_bound(line.begin(), line.end(), t0,
                               [](const EventRecord& e, std::int64_t t) { return e.start_ps() < t; });
    for (; it != line.end() && it->start_ps() < t1; ++it) ++by_id[it->metadata_id()];
  }
  std::map<std::string, std::int64_t, std::less<>> by_name;  // ids of different planes can share a name
  for (const auto& [id, count] : by_id) {
    std::string_view n = timeline.name(id);
    if (is_allocator_event(n)) continue;
    by_name[std::string(n)] += count;
    total += count;
  }
  std::vector<NameCount> out;
  for (auto& [name, count] : by_name) out.push_back({name, count});
  std::stable_sort(out.begin(), out.end(),
                   [](const NameCount& a, const NameCount& b) { return a.count > b.count; });
  return out;
}

std::vector<LiveGroup> group_live_by_host_event(std::span<const capture::MemoryEvent> memory,
                                                std::span<const std::size_t> live,
                                                std::span<const RuntimeExecution> executions,
                                                std::uint32_t host_plane, const HostTimeline& timeline,
                                                std::int64_t bytes_in_use, LiveLabelCache* cache) {
  LiveLabelCache local;
  LiveLabelCache& c = cache ? *cache : local;
  std::vector<std::string> labels(live.size());
  std::vector<std::string> modules(live.size());
  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, std::size_t>>> pending;  // line -> queries
  if (!c.executions_known) {
    c.executions_known = true;
    for (const RuntimeExecution& e : executions)
      if (e.plane == host_plane) c.executions_on_line[e.line].push_back(&e);
    for (auto& [line, list] : c.executions_on_line)
      std::stable_sort(list.begin(), list.end(), [](const RuntimeExecution* a, const RuntimeExecution* b) {
        return a->start_ps < b->start_ps;
      });
  }
  const auto& on_line = c.executions_on_line;
  for (std::size_t k = 0; k < live.size(); ++k) {
    if (auto known = c.labels.find(live[k]); known != c.labels.end()) {
      labels[k] = known->second;
      if (auto mod = c.modules.find(live[k]); mod != c.modules.end()) modules[k] = mod->second;
      continue;
    }
    const capture::MemoryEvent& m = memory[live[k]];
    const RuntimeExecution* inside = nullptr;
    if (auto found = on_line.find(m.line); found != on_line.end()) {
      const auto& list = found->second;
      auto it = std::upper_bound(list.begin(), list.end(), m.time_ps,
                                 [](std::int64_t t, const RuntimeExecution* e) { return t < e->start_ps; });
      if (it != list.begin() && m.time_ps <= (*std::prev(it))->end_ps) inside = *std::prev(it);
    }
    if (inside) {
      labels[k] = "outputs of " + inside->label + " execution " + std::to_string(inside->number);
      modules[k] = inside->label;
      if (cache) {
        c.labels.emplace(live[k], labels[k]);
        c.modules.emplace(live[k], modules[k]);
      }
    } else {
      pending[m.line].push_back({m.time_ps, k});
    }
  }
  for (auto& [line, queries] : pending) {
    std::vector<std::int64_t> ids(live.size(), -1);
    if (line < timeline.lines.size() && !timeline.lines[line].empty())
      enclosing_spans(line, timeline, queries, ids);
    for (const auto& [t, k] : queries) {
      labels[k] = ids[k] >= 0 ? std::string(timeline.name(ids[k])) : std::string("no enclosing host event");
      if (cache) c.labels.emplace(live[k], labels[k]);
    }
  }
  std::map<std::string, LiveGroup> groups;
  std::int64_t explained = 0;
  for (std::size_t k = 0; k < live.size(); ++k) {
    LiveGroup& g = groups[labels[k]];
    g.label = labels[k];
    g.module = modules[k];
    const std::int64_t b = memory[live[k]].allocation_bytes;
    g.bytes += b;
    g.requested_bytes += memory[live[k]].requested_bytes;
    ++g.count;
    g.largest = std::max(g.largest, b);
    explained += b;
  }
  std::vector<LiveGroup> out;
  for (auto& [label, g] : groups) out.push_back(std::move(g));
  if (bytes_in_use > explained) {
    LiveGroup before;
    before.label = "allocated before the capture started";
    before.bytes = bytes_in_use - explained;
    before.largest = before.bytes;
    before.before_capture = true;
    out.push_back(std::move(before));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LiveGroup& a, const LiveGroup& b) { return a.bytes > b.bytes; });
  return out;
}

}  // namespace oomscope::analysis
