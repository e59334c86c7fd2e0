#include "core/snapshot/peak_sites.h"

#include "core/snapshot/categories.h"

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

}  // namespace oomscope::snapshot
