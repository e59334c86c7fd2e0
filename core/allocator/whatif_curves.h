#pragma once
// Reserved and requested bytes over a snapshot's trace, recorded and replayed, for a chart on the Active
// Memory Timeline's axis (raw trace index, -1 before the first entry). The recorded curve is read from the
// trace from the replay's start state: reserved from the segment events, requested from alloc and
// free_requested (PyTorch records the request's size there, not the block's, so a recorded curve's
// `allocated` is the start's blocks only and is not drawn). A replayed curve is ReplayResult::curve
// (ReplayOptions::keep_curve). Both leave out private pools, which the model does not serve.
// downsample_curve() keeps every peak: each bucket holds the highest of each figure in force during it.

#include <cstdint>
#include <stop_token>
#include <vector>

#include "core/allocator/replay.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

// The recording's own curve for `device`, starting at the recorded replay's start state (`start`: the
// point at index -1 of that replay's curve). Throws Cancelled when `stop` is requested.
std::vector<CurvePoint> recorded_curve(const snapshot::Snapshot& snap, std::int64_t device, CurvePoint start,
                                       const std::stop_token& stop = {});

// At most `buckets` points covering trace indexes [lo, min(hi, covered_to)]: per bucket, the highest
// reserved, allocated and requested in force during it, at the bucket's first index. `curve` is a step
// curve (each point holds until the next) ordered by index that covers entries up to `covered_to` (the
// trace's last index, or the last entry a replay reached before its OOM).
std::vector<CurvePoint> downsample_curve(const std::vector<CurvePoint>& curve, std::int64_t covered_to,
                                         std::int64_t lo, std::int64_t hi, std::size_t buckets);

}  // namespace oomscope::allocator
