#pragma once
// Spatial bisection of one fragment, in place: the two primitives the decision tree is built from,
// public so that tests and the real trainer's reference implementation can use exactly these.

#include <cstdint>
#include <span>

#include "core/sim/config.h"
#include "core/sim/scene.h"

namespace oomscope::sim {

// The axis of the next spatial split: alternate-xy takes 0 when split_on_x else 1 (z never); longest takes
// the axis of the box's largest extent, z included (ties: the lower axis).
int choose_axis(AxisRule rule, bool split_on_x, const Bbox& box);

struct SplitResult {
  std::int64_t low_count = 0;  // points [0, low_count) have coordinate < value (midpoint) / are the
                               // lower half (median); the rest follow
  float value = 0;             // midpoint: (min + max) / 2 of the fragment's box; median: the smallest
                               // coordinate of the high half
  Bbox low_box;
  Bbox high_box;
};

// Partitions `points` on `axis`. Midpoint: coordinate < (box.lo + box.hi) / 2 goes low, as the reference
// does (box must be the bounds of points). Median: the floor(n/2) points that come first in the order
// (coordinate on axis, then x, y, z) go low, so the halves differ by at most one point and the sets do not
// depend on the input order. Computes both halves' boxes in the same pass.
SplitResult split_points(std::span<Point> points, int axis, SplitPoint mode, const Bbox& box);

}  // namespace oomscope::sim
