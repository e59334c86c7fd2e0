// The lazy point process (scene_layout.h): that it is the generator's layout, that its splits keep counts,
// and that its draws are deterministic and have the right moments.

#include <gtest/gtest.h>

#include <cmath>

#include "core/sim/scene_layout.h"

namespace oomscope::sim {
namespace {

Bbox cut(Bbox b, int axis, bool high, float v) {
  (high ? b.lo : b.hi)[axis] = v;
  return b;
}

TEST(Scene, LayoutMassIsOneOverTheRoomAndAdditive) {
  for (std::int64_t scene : {0, 7, 19}) {
    const SceneLayout l = scene_layout(scene, 5);
    EXPECT_EQ(l.room, scene_room(scene, 5));
    EXPECT_NEAR(layout_mass(l, l.room), 1.0, 1e-12);
    for (int axis = 0; axis < 3; ++axis) {
      const float v = l.room.lo[axis] + 0.37f * l.room.extent(axis);
      const Bbox low = cut(l.room, axis, false, v), high = cut(l.room, axis, true, v);
      EXPECT_NEAR(layout_mass(l, low) + layout_mass(l, high), 1.0, 1e-12);
      const Bbox quarter = cut(low, (axis + 1) % 3, false, 0.5f * low.hi[(axis + 1) % 3]);
      EXPECT_LT(layout_mass(l, quarter), layout_mass(l, low));
    }
  }
}

TEST(Scene, LayoutIsTheGeneratorsDistribution) {
  // The share of generated points left of a cut matches the layout's mass there (the generator's normals are
  // Irwin-Hall, so not exactly: within a percentage point).
  const std::int64_t scene = 4, seed = 1;
  std::vector<Point> pts(200'000);
  generate_scene_points(scene, seed, pts);
  const SceneLayout l = scene_layout(scene, seed);
  for (int axis = 0; axis < 3; ++axis)
    for (float f : {0.2f, 0.5f, 0.8f}) {
      const float v = f * l.room.hi[axis];
      double below = 0;
      for (const Point& p : pts) below += p[axis] < v;
      EXPECT_NEAR(below / double(pts.size()), layout_mass(l, cut(l.room, axis, false, v)), 0.01)
          << "axis " << axis << " at " << v;
    }
}

TEST(Split, BinomialDrawsHaveTheBinomialMoments) {
  for (std::int64_t n : {20, 400, 1'000'000})
    for (double p : {0.001, 0.3, 0.97}) {
      const int draws = 4000;
      double sum = 0, sq = 0;
      for (int i = 0; i < draws; ++i) {
        const std::int64_t k = draw_binomial(std::uint64_t(i) * 7919 + 1, n, p);
        ASSERT_GE(k, 0);
        ASSERT_LE(k, n);
        sum += double(k);
        sq += double(k) * double(k);
      }
      const double mean = sum / draws, var = sq / draws - mean * mean;
      const double want_var = double(n) * p * (1 - p);
      EXPECT_NEAR(mean, double(n) * p, 5 * std::sqrt(want_var / draws) + 0.01) << n << " " << p;
      EXPECT_NEAR(var, want_var, 0.15 * want_var + 0.01) << n << " " << p;
    }
  EXPECT_EQ(draw_binomial(3, 1000, 0.0), 0);
  EXPECT_EQ(draw_binomial(3, 1000, 1.0), 1000);
  EXPECT_EQ(draw_binomial(3, 1000, 0.4), draw_binomial(3, 1000, 0.4));
}

TEST(Split, CellMedianIsExactAndMidpointIsTheCellsMiddle) {
  const SceneLayout l = scene_layout(2, 9);
  const std::uint64_t key = scene_cell_key(2, 9);
  for (int axis = 0; axis < 3; ++axis) {
    const CellSplit med = split_cell(l, l.room, 123'457, axis, SplitPoint::Median, key);
    EXPECT_EQ(med.low_count, 61'728);
    EXPECT_GT(med.value, l.room.lo[axis]);
    EXPECT_LT(med.value, l.room.hi[axis]);
    EXPECT_EQ(med.low_box.hi[axis], med.value);
    EXPECT_EQ(med.high_box.lo[axis], med.value);
    // The quantile: the layout's mass below it is half the room's.
    EXPECT_NEAR(layout_mass(l, med.low_box), 0.5, 1e-4);

    const CellSplit mid = split_cell(l, l.room, 123'457, axis, SplitPoint::Midpoint, key);
    EXPECT_FLOAT_EQ(mid.value, (l.room.lo[axis] + l.room.hi[axis]) / 2);
    const double p = layout_mass(l, mid.low_box);
    EXPECT_NEAR(double(mid.low_count), 123'457 * p, 5 * std::sqrt(123'457 * p * (1 - p)) + 1);
    const CellSplit again = split_cell(l, l.room, 123'457, axis, SplitPoint::Midpoint, key);
    EXPECT_EQ(again.low_count, mid.low_count);
  }
}

TEST(Split, OneSidedMidpointCutIsRedoneInsideTheOccupiedHalf) {
  // A cell far from every cluster but touching the floor: with few points the first cut often leaves one
  // side empty; the split then separates inside the occupied half, as a tight bounding box would.
  const SceneLayout l = scene_layout(2, 9);
  Bbox cell = l.room;
  cell.hi[2] = 0.5f * l.room.hi[2];
  int separated = 0;
  for (std::uint64_t key = 1; key <= 200; ++key) {
    const CellSplit r = split_cell(l, cell, 40, 2, SplitPoint::Midpoint, key);
    separated += r.low_count > 0 && r.low_count < 40;
    EXPECT_LE(r.high_box.hi[2], cell.hi[2]);
  }
  EXPECT_EQ(separated, 200);
}

}  // namespace
}  // namespace oomscope::sim
