#pragma once
// Two Kineto memory timelines on one axis (the live bytes of each trace's main device, kineto_ranks.h's
// rank_device), as run_overlay.h does for snapshots: aligned by the first ProfilerStep#N both traces carry,
// else by time from each trace's first [memory] event; the user may shift B further.

#include <cstddef>

#include "core/snapshot/kineto.h"
#include "core/snapshot/run_overlay.h"

namespace oomscope::snapshot {

// OverlayRun::device is the device id; x is µs since the device's first [memory] event. `points` bounds each
// series (at least 4), every peak kept exactly.
RunOverlay overlay_kineto(const KinetoTrace& a, const KinetoTrace& b, std::size_t points = 2000);

}  // namespace oomscope::snapshot
