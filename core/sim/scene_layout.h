#pragma once
// A scene's point layout as a point process rather than a list of points: the mixture that
// generate_scene_points() samples from (Gaussian clusters clamped into the room, a floor slab and four wall
// slabs), and the lazy refinement the simulator splits fragments with.
//
// A spatial fragment is a cell (a box inside the room), a point count and a random stream of its own. Cutting
// the cell sends Binomial(n, p) of its points to the low side, p being the layout's mass on that side over
// the cell's mass: given how many points a cell holds, the points are i.i.d. from the layout restricted to
// the cell, so this is an exact refinement of the process. A split costs O(clusters), not O(points), and
// everything stays a pure function of (seed, scene, path of the fragment).

#include <cstdint>

#include "core/sim/config.h"
#include "core/sim/scene.h"

namespace oomscope::sim {

struct SceneLayout {
  struct Component {
    // Gaussian: a = mean, b = sigma per axis, clamped into the room (the clamped mass sits on its faces).
    // Uniform slab: a = lo, b = hi per axis.
    double a[3] = {0, 0, 0};
    double b[3] = {0, 0, 0};
    double weight = 0;  // share of the scene's points
    bool gaussian = true;
  };
  static constexpr int kMaxComponents = 11;  // up to 6 clusters, the floor and 4 walls
  Bbox room;
  int count = 0;
  Component comp[kMaxComponents];
};

// The layout of a scene (the same clusters generate_scene_points() draws).
SceneLayout scene_layout(std::int64_t scene, std::uint64_t seed);

// The layout's mass inside `cell` (a share of the scene's points). Intervals are [lo, hi), except that a
// cell reaching the room's lower or upper face takes the points clamped onto it.
double layout_mass(const SceneLayout& layout, const Bbox& cell);

// The random stream of the room-level fragment of a scene, and of the low (side 0) / high child of a cell.
std::uint64_t scene_cell_key(std::int64_t scene, std::uint64_t seed);
std::uint64_t child_cell_key(std::uint64_t key, int side);

// Binomial(n, p): exact for small n and small means, normal with continuity correction otherwise; in [0, n].
std::int64_t draw_binomial(std::uint64_t key, std::int64_t n, double p);

struct CellSplit {
  std::int64_t low_count = 0;
  float value = 0;
  Bbox low_box;  // the cells of the two halves
  Bbox high_box;
};

// Splits a cell of n points on `axis`. Midpoint: at the middle of the cell, the count drawn from the cell's
// stream; when every point lands on one side, the points' bounding box lies inside that half, so the cut is
// redone there (as a bounding-box midpoint would be). Median: at the layout's quantile that leaves exactly
// floor(n/2) points low.
CellSplit split_cell(const SceneLayout& layout, const Bbox& cell, std::int64_t n, int axis, SplitPoint mode,
                     std::uint64_t key);

}  // namespace oomscope::sim
