#include "core/sim/split.h"

#include <algorithm>
#include <limits>

namespace oomscope::sim {

int choose_axis(AxisRule rule, bool split_on_x, const Bbox& box) {
  if (rule == AxisRule::AlternateXY) return split_on_x ? 0 : 1;
  int best = 0;
  for (int a = 1; a < 3; ++a)
    if (box.extent(a) > box.extent(best)) best = a;
  return best;
}

namespace {

// A box being grown point by point; starts empty.
struct Grow {
  float lo[3] = {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                 std::numeric_limits<float>::infinity()};
  float hi[3] = {-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity()};
  void add(const Point& p) {
    lo[0] = std::min(lo[0], p.x);
    hi[0] = std::max(hi[0], p.x);
    lo[1] = std::min(lo[1], p.y);
    hi[1] = std::max(hi[1], p.y);
    lo[2] = std::min(lo[2], p.z);
    hi[2] = std::max(hi[2], p.z);
  }
  Bbox box(bool empty) const {
    Bbox b;
    if (empty) return b;
    std::copy(lo, lo + 3, b.lo);
    std::copy(hi, hi + 3, b.hi);
    return b;
  }
};

bool lex_less(const Point& a, const Point& b, int axis) {
  if (a[axis] != b[axis]) return a[axis] < b[axis];
  if (a.x != b.x) return a.x < b.x;
  if (a.y != b.y) return a.y < b.y;
  return a.z < b.z;
}

}  // namespace

SplitResult split_points(std::span<Point> pts, int axis, SplitPoint mode, const Bbox& box) {
  SplitResult r;
  Grow low, high;
  const std::size_t n = pts.size();
  if (mode == SplitPoint::Midpoint) {
    // Computed in float like the reference's float32 tensors, so a coordinate equal to mid goes high.
    const float mid = (box.hi[axis] + box.lo[axis]) / 2.0f;
    r.value = mid;
    std::size_t i = 0, j = n;
    for (;;) {
      while (i < j && pts[i][axis] < mid) low.add(pts[i++]);
      while (i < j && !(pts[j - 1][axis] < mid)) high.add(pts[--j]);
      if (i >= j) break;
      std::swap(pts[i], pts[j - 1]);
    }
    r.low_count = static_cast<std::int64_t>(i);
  } else {
    const std::size_t k = n / 2;
    if (n > 0) {
      std::nth_element(pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(k), pts.end(),
                       [axis](const Point& a, const Point& b) { return lex_less(a, b, axis); });
      r.value = pts[k][axis];
    }
    for (std::size_t i = 0; i < k; ++i) low.add(pts[i]);
    for (std::size_t i = k; i < n; ++i) high.add(pts[i]);
    r.low_count = static_cast<std::int64_t>(k);
  }
  r.low_box = low.box(r.low_count == 0);
  r.high_box = high.box(static_cast<std::size_t>(r.low_count) == n);
  return r;
}

}  // namespace oomscope::sim
