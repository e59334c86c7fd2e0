#pragma once
// Synthetic point-cloud scenes: how many points each scene has, and where they are.
//
// Everything is a pure function of (seed, scene id), so a scene can be regenerated on demand and the
// simulator never holds more than the batch being simulated. Sizes for the whole epoch are cheap (one
// integer per scene). The simulator never generates point positions: it splits the layout they are drawn
// from (scene_layout.h); generate_scene_points() samples that layout, for tests and the real trainer.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/sim/config.h"

namespace oomscope::sim {

struct Point {
  float x = 0, y = 0, z = 0;
  float operator[](int axis) const { return axis == 0 ? x : axis == 1 ? y : z; }
};

struct Bbox {
  float lo[3] = {0, 0, 0};
  float hi[3] = {0, 0, 0};

  float extent(int axis) const { return hi[axis] - lo[axis]; }
  void include(const Bbox& other);
  friend bool operator==(const Bbox&, const Bbox&) = default;
};

// The box of a set of points; an all-zero box for an empty set.
Bbox bounds_of(std::span<const Point> points);

// Smallest and largest scene of the `uniform` distribution (the ScanNet range the reference quotes).
inline constexpr std::int64_t kUniformMinPoints = 20'000;
inline constexpr std::int64_t kUniformMaxPoints = 300'000;
// `heavy-tailed`: Pareto(alpha 1.3) from 20,000 points, capped at 3,000,000: most scenes are small, a few
// are an order of magnitude larger than anything `uniform` produces.
inline constexpr std::int64_t kHeavyTailMaxPoints = 3'000'000;
// The largest scene the simulator takes (from a sizes file): its points must fit in memory when split.
inline constexpr std::int64_t kMaxScenePoints = 100'000'000;

// Points per scene for scenes 0..count-1. `uniform` and `heavy-tailed` only (a File source is read with
// read_scene_sizes). Deterministic from the seed.
std::vector<std::int64_t> generate_scene_sizes(SizeDist dist, std::int64_t count, std::uint64_t seed);

// The order scenes are drawn in for one epoch (a permutation of 0..count-1), deterministic from the seed.
std::vector<std::int64_t> epoch_order(std::int64_t count, std::uint64_t seed, std::int64_t epoch);

// The room a scene is scanned in: its points lie inside this box and reach all six faces, so it is also the
// exact bounding box of the scene's points (which is what lets unsplit scenes stay unmaterialised).
Bbox scene_room(std::int64_t scene, std::uint64_t seed);

// Writes the scene's points into `out` (out.size() points). Layout: a few dense Gaussian clusters
// (furniture, clutter: about 70 % of the points) over a sparse uniform scan of floor and walls, plus the
// room's two extreme corners, so that a bounding-box midpoint split on it is visibly uneven.
void generate_scene_points(std::int64_t scene, std::uint64_t seed, std::span<Point> out);

}  // namespace oomscope::sim
