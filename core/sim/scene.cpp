#include "core/sim/scene.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/sim/detail/rng.h"
#include "core/sim/detail/scene_clusters.h"
#include "core/util/error.h"

namespace oomscope::sim {

using detail::Rng;
using detail::stream_key;

namespace {
enum Purpose : std::uint64_t { kSizes = 1, kOrder = 2, kRoom = 3, kPoints = 4 };
}  // namespace

void Bbox::include(const Bbox& o) {
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::min(lo[a], o.lo[a]);
    hi[a] = std::max(hi[a], o.hi[a]);
  }
}

Bbox bounds_of(std::span<const Point> points) {
  Bbox b;
  if (points.empty()) return b;
  b.lo[0] = b.hi[0] = points[0].x;
  b.lo[1] = b.hi[1] = points[0].y;
  b.lo[2] = b.hi[2] = points[0].z;
  for (const Point& p : points) {
    b.lo[0] = std::min(b.lo[0], p.x);
    b.hi[0] = std::max(b.hi[0], p.x);
    b.lo[1] = std::min(b.lo[1], p.y);
    b.hi[1] = std::max(b.hi[1], p.y);
    b.lo[2] = std::min(b.lo[2], p.z);
    b.hi[2] = std::max(b.hi[2], p.z);
  }
  return b;
}

std::vector<std::int64_t> generate_scene_sizes(SizeDist dist, std::int64_t count, std::uint64_t seed) {
  if (dist == SizeDist::File)
    throw Error(ErrorKind::InvalidArgument, "", "scene sizes of a file source are read, not generated");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  Rng rng(stream_key(seed, kSizes, 0));
  for (auto& s : sizes) {
    if (dist == SizeDist::Uniform) {
      s = kUniformMinPoints + static_cast<std::int64_t>(rng.below(kUniformMaxPoints - kUniformMinPoints + 1));
    } else {
      // Pareto(alpha 1.3, x_min 20,000): median ~34,000 points, 3 % above 300,000.
      const double x = double(kUniformMinPoints) / std::pow(rng.uniform_open0(), 1.0 / 1.3);
      s = static_cast<std::int64_t>(std::min(x, double(kHeavyTailMaxPoints)));
    }
  }
  return sizes;
}

std::vector<std::int64_t> epoch_order(std::int64_t count, std::uint64_t seed, std::int64_t epoch) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(stream_key(seed, kOrder, static_cast<std::uint64_t>(epoch)));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

Bbox scene_room(std::int64_t scene, std::uint64_t seed) {
  Rng rng(stream_key(seed, kRoom, static_cast<std::uint64_t>(scene)));
  Bbox b;
  b.hi[0] = static_cast<float>(4.0 + 8.0 * rng.uniform());  // 4 to 12 m long
  b.hi[1] = static_cast<float>(3.0 + 7.0 * rng.uniform());  // 3 to 10 m wide
  b.hi[2] = static_cast<float>(2.4 + 0.8 * rng.uniform());  // 2.4 to 3.2 m high
  return b;
}

void generate_scene_points(std::int64_t scene, std::uint64_t seed, std::span<Point> out) {
  if (out.empty()) return;
  const Bbox room = scene_room(scene, seed);
  const float L[3] = {room.hi[0], room.hi[1], room.hi[2]};
  Rng rng(stream_key(seed, kPoints, static_cast<std::uint64_t>(scene)));

  // Furniture and clutter: a few tight clusters that hold most of the points, placed anywhere in the room,
  // so a bbox midpoint often has a dense cluster on one side and sparse wall on the other.
  detail::Cluster clusters[detail::kMaxClusters];
  float total = 0;
  const int k = detail::draw_clusters(rng, L, clusters, total);
  auto clamp_to = [](float v, float hi) { return std::clamp(v, 0.0f, hi); };

  // The two extreme corners make the points' bounding box exactly the room (see scene_room()).
  out[0] = Point{0, 0, 0};
  if (out.size() == 1) return;
  out[1] = Point{L[0], L[1], L[2]};
  // The rest in blocks: 70 % in the clusters by weight, 15 % on the floor, 15 % on the walls. Blocks keep
  // the inner loops free of category branches (the generator runs for every scene that gets split); the
  // order of points inside a scene means nothing to the splits, which depend on the point set only.
  const std::size_t rest = out.size() - 2;
  std::size_t next = 2;
  const std::size_t in_clusters = rest * 7 / 10;
  float weight_before = 0;
  for (int j = 0; j < k; ++j) {
    const detail::Cluster& cl = clusters[j];
    const auto end =
        2 + static_cast<std::size_t>(double(in_clusters) * double(weight_before + cl.weight) / total);
    weight_before += cl.weight;
    for (; next < std::min(end, out.size()); ++next)
      out[next] = Point{clamp_to(cl.c[0] + cl.sigma[0] * rng.normal(), L[0]),
                        clamp_to(cl.c[1] + cl.sigma[1] * rng.normal(), L[1]),
                        clamp_to(cl.c[2] + cl.sigma[2] * rng.normal(), L[2])};
  }
  const std::size_t floor_end = next + (out.size() - next) / 2;
  for (; next < floor_end; ++next) {
    float a, b, c, d;
    rng.uniform2(a, b);
    rng.uniform2(c, d);
    out[next] = Point{L[0] * a, L[1] * b, detail::kFloorThickness * c};
  }
  for (int wall = 0; next < out.size(); ++next, wall = (wall + 1) & 3) {
    float a, b, c, d;
    rng.uniform2(a, b);
    rng.uniform2(c, d);
    const float depth = detail::kWallDepth * c;
    const float along_x = L[0] * a, along_y = L[1] * a, height = L[2] * b;
    switch (wall) {
      case 0:
        out[next] = Point{along_x, depth, height};
        break;
      case 1:
        out[next] = Point{along_x, L[1] - depth, height};
        break;
      case 2:
        out[next] = Point{depth, along_y, height};
        break;
      default:
        out[next] = Point{L[0] - depth, along_y, height};
        break;
    }
  }
}

}  // namespace oomscope::sim
