#include "core/sim/scene_layout.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/sim/detail/rng.h"
#include "core/sim/detail/scene_clusters.h"

namespace oomscope::sim {

using detail::Rng;

namespace {

// Same purpose tag as the point generator's stream (scene.cpp): the clusters are drawn from it.
constexpr std::uint64_t kPointsPurpose = 4;
constexpr std::uint64_t kCellPurpose = 5;

// P(X < x) on one axis for a component, x strictly inside the room.
double cdf_below(const SceneLayout::Component& c, int axis, double x) {
  if (c.gaussian) return 0.5 * std::erfc((c.a[axis] - x) / (c.b[axis] * std::numbers::sqrt2));
  const double w = c.b[axis] - c.a[axis];
  return std::clamp((x - c.a[axis]) / w, 0.0, 1.0);
}

// The component's share of [lo, hi) on one axis; the room's faces close the interval (clamped points).
double axis_share(const SceneLayout& l, const SceneLayout::Component& c, int axis, double lo, double hi) {
  const double upper = hi >= double(l.room.hi[axis]) ? 1.0 : cdf_below(c, axis, hi);
  const double lower = lo <= double(l.room.lo[axis]) ? 0.0 : cdf_below(c, axis, lo);
  return std::max(upper - lower, 0.0);
}

double normal(Rng& rng) {
  // Box-Muller: the stream's own transform, so the draw does not depend on the standard library's.
  const double u1 = rng.uniform_open0(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

SceneLayout scene_layout(std::int64_t scene, std::uint64_t seed) {
  SceneLayout l;
  l.room = scene_room(scene, seed);
  const float L[3] = {l.room.hi[0], l.room.hi[1], l.room.hi[2]};
  Rng rng(detail::stream_key(seed, kPointsPurpose, static_cast<std::uint64_t>(scene)));
  detail::Cluster cl[detail::kMaxClusters];
  float total = 0;
  const int k = detail::draw_clusters(rng, L, cl, total);
  double sum = 0;  // in double, so that the masses add up to 1 (the float total is rounded)
  for (int i = 0; i < k; ++i) sum += double(cl[i].weight);
  for (int i = 0; i < k; ++i) {
    auto& c = l.comp[l.count++];
    for (int a = 0; a < 3; ++a) c.a[a] = cl[i].c[a], c.b[a] = cl[i].sigma[a];
    c.weight = detail::kClusterShare * double(cl[i].weight) / sum;
  }
  const double rest = (1.0 - detail::kClusterShare) / 2.0;  // floor, then the four walls together
  auto slab = [&](double x0, double x1, double y0, double y1, double z0, double z1, double weight) {
    auto& c = l.comp[l.count++];
    c.gaussian = false;
    c.a[0] = x0, c.b[0] = x1, c.a[1] = y0, c.b[1] = y1, c.a[2] = z0, c.b[2] = z1;
    c.weight = weight;
  };
  const double d = detail::kWallDepth;
  slab(0, L[0], 0, L[1], 0, detail::kFloorThickness, rest);
  slab(0, L[0], 0, d, 0, L[2], rest / 4);
  slab(0, L[0], L[1] - d, L[1], 0, L[2], rest / 4);
  slab(0, d, 0, L[1], 0, L[2], rest / 4);
  slab(L[0] - d, L[0], 0, L[1], 0, L[2], rest / 4);
  return l;
}

double layout_mass(const SceneLayout& l, const Bbox& cell) {
  double m = 0;
  for (int i = 0; i < l.count; ++i) {
    const auto& c = l.comp[i];
    double share = c.weight;
    for (int a = 0; a < 3 && share > 0; ++a) share *= axis_share(l, c, a, cell.lo[a], cell.hi[a]);
    m += share;
  }
  return m;
}

std::uint64_t scene_cell_key(std::int64_t scene, std::uint64_t seed) {
  return detail::stream_key(seed, kCellPurpose, static_cast<std::uint64_t>(scene));
}

std::uint64_t child_cell_key(std::uint64_t key, int side) {
  return detail::mix64(key ^ (side == 0 ? 0x243f6a8885a308d3ULL : 0x13198a2e03707344ULL));
}

std::int64_t draw_binomial(std::uint64_t key, std::int64_t n, double p) {
  if (n <= 0 || !(p > 0)) return 0;
  if (p >= 1) return n;
  Rng rng(key);
  if (n <= 32) {
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < n; ++i) k += rng.uniform() < p;
    return k;
  }
  // Draw the rarer side, so that the mean is small whenever one of the two is.
  const bool flip = p > 0.5;
  const double q = flip ? 1.0 - p : p;
  const double mean = double(n) * q;
  std::int64_t k = 0;
  if (mean < 10) {
    // Inversion: walk the pmf up from 0 (about mean steps).
    const double u = rng.uniform();
    double pmf = std::exp(double(n) * std::log1p(-q));
    double cdf = pmf;
    const double ratio = q / (1.0 - q);
    while (u > cdf && k < n && pmf > 0) {
      pmf *= double(n - k) / double(k + 1) * ratio;
      ++k;
      cdf += pmf;
    }
  } else {
    // Variance >= 5 here: the normal approximation, rounded (the continuity correction).
    const double sd = std::sqrt(mean * (1.0 - q));
    k = static_cast<std::int64_t>(std::floor(mean + sd * normal(rng) + 0.5));
    k = std::clamp<std::int64_t>(k, 0, n);
  }
  return flip ? n - k : k;
}

namespace {

Bbox with(const Bbox& b, int axis, bool high, float v) {
  Bbox r = b;
  (high ? r.lo : r.hi)[axis] = v;
  return r;
}

CellSplit midpoint_split(const SceneLayout& l, Bbox cell, std::int64_t n, int axis, std::uint64_t key) {
  CellSplit r;
  // Each retry halves the cell; 64 reaches float resolution for any room.
  for (int round = 0; round < 64; ++round) {
    r.value = (cell.lo[axis] + cell.hi[axis]) / 2.0f;
    r.low_box = with(cell, axis, false, r.value);
    r.high_box = with(cell, axis, true, r.value);
    const double lo = layout_mass(l, r.low_box), hi = layout_mass(l, r.high_box);
    const double p = lo + hi > 0 ? lo / (lo + hi) : 0.5;
    r.low_count = draw_binomial(key, n, p);
    key = child_cell_key(key, 2);
    const bool one_sided = r.low_count == 0 || r.low_count == n;
    if (!one_sided || n < 2 || r.value <= cell.lo[axis] || r.value >= cell.hi[axis]) break;
    cell = r.low_count == 0 ? r.high_box : r.low_box;
  }
  return r;
}

CellSplit median_split(const SceneLayout& l, const Bbox& cell, std::int64_t n, int axis) {
  CellSplit r;
  r.low_count = n / 2;
  // The mass below v along `axis` is a sum over components of (their share on the other two axes) x
  // (their share of [lo, v) on this one): the other axes are computed once, then v is searched for.
  double other[SceneLayout::kMaxComponents];
  double total = 0;
  for (int i = 0; i < l.count; ++i) {
    const auto& c = l.comp[i];
    other[i] = c.weight;
    for (int a = 0; a < 3; ++a)
      if (a != axis) other[i] *= axis_share(l, c, a, cell.lo[a], cell.hi[a]);
    total += other[i] * axis_share(l, c, axis, cell.lo[axis], cell.hi[axis]);
  }
  const float lo = cell.lo[axis], hi = cell.hi[axis];
  r.value = (lo + hi) / 2.0f;
  if (n > 0 && total > 0 && lo < hi) {
    const double target = total * double(r.low_count) / double(n);
    auto excess = [&](double v) {
      double below = 0;
      for (int i = 0; i < l.count; ++i)
        if (other[i] > 0) below += other[i] * axis_share(l, l.comp[i], axis, lo, v);
      return below - target;
    };
    // Regula falsi with the Illinois fix: the mass is smooth and monotone in v, so this needs a handful of
    // evaluations where plain bisection to float resolution needs ~25.
    double a = lo, b = hi, fa = -target, fb = total - target;
    const double tol = 1e-7 * (double(hi) - double(lo));
    int kept = 0;  // which end stayed last time: -1 a, +1 b
    for (int it = 0; it < 100 && b - a > tol; ++it) {
      double v = (a * fb - b * fa) / (fb - fa);
      if (!(v > a && v < b)) v = (a + b) / 2;
      const double fv = excess(v);
      if (std::abs(fv) <= 1e-12 * total) {
        a = b = v;
        break;
      }
      if (fv < 0) {
        a = v, fa = fv;
        if (kept == 1) fb /= 2;
        kept = 1;
      } else {
        b = v, fb = fv;
        if (kept == -1) fa /= 2;
        kept = -1;
      }
    }
    // Strictly inside the cell, so that both halves are cells of positive extent.
    r.value = std::clamp(static_cast<float>((a + b) / 2), std::nextafter(lo, hi), std::nextafter(hi, lo));
    if (!(r.value > lo && r.value < hi)) r.value = (lo + hi) / 2.0f;
  }
  r.low_box = with(cell, axis, false, r.value);
  r.high_box = with(cell, axis, true, r.value);
  return r;
}

}  // namespace

CellSplit split_cell(const SceneLayout& l, const Bbox& cell, std::int64_t n, int axis, SplitPoint mode,
                     std::uint64_t key) {
  return mode == SplitPoint::Midpoint ? midpoint_split(l, cell, n, axis, key)
                                      : median_split(l, cell, n, axis);
}

}  // namespace oomscope::sim
