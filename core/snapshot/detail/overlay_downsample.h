#pragma once
// The downsampling of two-run overlays (run_overlay.cpp, kineto_overlay.cpp).

#include <cstddef>
#include <vector>

#include "core/snapshot/run_overlay.h"

namespace oomscope::snapshot::detail {

// Min and max of each of about points/2 buckets, in x order, the global peak kept exactly.
std::vector<OverlayPoint> downsample(const std::vector<OverlayPoint>& all, std::size_t points);

}  // namespace oomscope::snapshot::detail
