#include "core/allocator/whatif_curves.h"

#include <algorithm>

#include "core/allocator/start_state.h"
#include "core/util/error.h"

namespace oomscope::allocator {

using snapshot::Action;

std::vector<CurvePoint> recorded_curve(const snapshot::Snapshot& snap, std::int64_t device, CurvePoint start,
                                       const std::stop_token& stop) {
  std::vector<CurvePoint> out;
  const auto dev = static_cast<std::size_t>(device);
  if (device < 0 || dev >= snap.device_traces.size()) return out;
  const std::vector<snapshot::TraceEntry>& trace = snap.device_traces[dev];
  const std::vector<AddressRange> pools = build_start_state(snap, device).private_pools;
  start.index = -1;
  out.push_back(start);
  std::int64_t reserved = static_cast<std::int64_t>(start.reserved);
  std::int64_t requested = static_cast<std::int64_t>(start.requested);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if ((i & 4095) == 0 && stop.stop_requested()) throw Cancelled(snap.path);
    const snapshot::TraceEntry& e = trace[i];
    if (e.action != Action::Oom && in_ranges(pools, e.addr)) continue;
    switch (e.action) {
      case Action::SegmentAlloc:
      case Action::SegmentMap:
        reserved += e.size;
        break;
      case Action::SegmentFree:
      case Action::SegmentUnmap:
        reserved -= e.size;
        break;
      case Action::Alloc:
        requested += e.size;
        break;
      case Action::FreeRequested:
        requested -= e.size;
        break;
      default:
        continue;
    }
    const CurvePoint p{static_cast<std::int64_t>(i),
                       static_cast<std::uint64_t>(std::max<std::int64_t>(reserved, 0)), start.allocated,
                       static_cast<std::uint64_t>(std::max<std::int64_t>(requested, 0))};
    if (p.reserved != out.back().reserved || p.requested != out.back().requested) out.push_back(p);
  }
  return out;
}

std::vector<CurvePoint> downsample_curve(const std::vector<CurvePoint>& curve, std::int64_t covered_to,
                                         std::int64_t lo, std::int64_t hi, std::size_t buckets) {
  std::vector<CurvePoint> out;
  const std::int64_t end = std::min(hi, covered_to);
  if (curve.empty() || end < lo || buckets == 0) return out;
  const auto span = static_cast<std::uint64_t>(end - lo + 1);
  const std::uint64_t n = std::min<std::uint64_t>(buckets, span);
  // The point in force at lo: the last one at or before it (or the first).
  auto it = std::upper_bound(curve.begin(), curve.end(), lo,
                             [](std::int64_t v, const CurvePoint& p) { return v < p.index; });
  CurvePoint current = it == curve.begin() ? curve.front() : *(it - 1);
  out.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t b = 0; b < n; ++b) {
    const std::int64_t from = lo + static_cast<std::int64_t>(span * b / n);
    const std::int64_t to = lo + static_cast<std::int64_t>(span * (b + 1) / n) - 1;  // inclusive
    CurvePoint top{from, current.reserved, current.allocated, current.requested};
    for (; it != curve.end() && it->index <= to; ++it) {
      current = *it;
      top.reserved = std::max(top.reserved, it->reserved);
      top.allocated = std::max(top.allocated, it->allocated);
      top.requested = std::max(top.requested, it->requested);
    }
    out.push_back(top);
  }
  return out;
}

}  // namespace oomscope::allocator
