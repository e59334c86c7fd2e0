#include "core/snapshot/peak_sites.h"

#include <algorithm>
#include <utility>

#include "core/snapshot/categories.h"
#include "core/snapshot/categoriser.h"

namespace oomscope::snapshot {

const DeviceAnalysis* main_device(const Snapshot& s, const SnapshotReport& r) {
  const std::int64_t dev = default_device(s);
  for (const DeviceAnalysis& d : r.devices)
    if (d.device == dev) return &d;
  return r.devices.empty() ? nullptr : &r.devices.front();
}

std::map<std::string, std::int64_t> sites_at_peak(const Snapshot& s, const DeviceAnalysis* d) {
  std::map<std::string, std::int64_t> out;
  if (!d) return out;
  const Timeline& t = d->timeline;
  for (const TimelineElement& e : t.elements)
    if (e.live_at(t.peak_index)) {
      std::string w = user_frame(s, e.frames);
      out[w.empty() ? std::string("(no stack)") : w] += e.size;
    }
  return out;
}

std::vector<PeakSite> categorised_sites_at_peak(const Snapshot& s, const DeviceAnalysis* d,
                                                const CategoryRules* rules) {
  std::vector<PeakSite> out;
  if (!d) return out;
  const Categoriser categoriser(s, rules);
  const Timeline& t = d->timeline;
  std::map<std::pair<std::string, std::string>, std::pair<PeakSite, std::int64_t>> groups;  // + largest
  for (const TimelineElement& e : t.elements) {
    if (!e.live_at(t.peak_index)) continue;
    std::string w = user_frame(s, e.frames);
    if (w.empty()) w = "(no stack)";
    Categorised c = categoriser.of(e, d->device);
    auto [it, added] = groups.try_emplace({w, c.label()}, PeakSite{w, c.label(), {}, 0, 0}, -1);
    PeakSite& p = it->second.first;
    p.bytes += e.size;
    ++p.count;
    if (e.size > it->second.second) it->second.second = e.size, p.rule = std::move(c.rule);
  }
  out.reserve(groups.size());
  for (auto& [key, value] : groups) out.push_back(std::move(value.first));
  return out;
}

}  // namespace oomscope::snapshot
