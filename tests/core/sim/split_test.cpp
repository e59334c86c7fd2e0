// Defect 3 (midpoint vs median), the axis rules and the floor.

#include "core/sim/split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::sized_config;

// A room 10 m long with 90 % of its points in a 20 cm cluster near x = 1 and the rest spread evenly.
std::vector<Point> clustered_room() {
  std::vector<Point> pts;
  for (int i = 0; i < 9000; ++i)
    pts.push_back(Point{1.0f + 0.2f * float(i % 97) / 97.0f, 2.0f + 0.2f * float(i % 89) / 89.0f, 0.5f});
  for (int i = 0; i < 1000; ++i)
    pts.push_back(Point{10.0f * float(i) / 999.0f, 4.0f * float(i % 7) / 6.0f, 1.0f});
  return pts;
}

TEST(Split, MedianHalvesAreEqualMidpointHalvesAreNot) {
  auto a = clustered_room();
  auto b = a;
  const Bbox box = bounds_of(a);
  const SplitResult mid = split_points(a, 0, SplitPoint::Midpoint, box);
  const SplitResult med = split_points(b, 0, SplitPoint::Median, box);
  const std::int64_t n = 10000;
  EXPECT_LE(std::llabs(med.low_count - (n - med.low_count)), 1);
  // The midpoint (x = 5) leaves the cluster and half the spread points on one side: 9,500 vs 500.
  EXPECT_EQ(mid.low_count, 9500);
  EXPECT_FLOAT_EQ(mid.value, 5.0f);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(a[std::size_t(i)].x < 5.0f, i < mid.low_count);
  EXPECT_EQ(mid.low_box, bounds_of(std::span<const Point>(a).first(std::size_t(mid.low_count))));
  EXPECT_EQ(mid.high_box, bounds_of(std::span<const Point>(a).subspan(std::size_t(mid.low_count))));
}

TEST(Split, MedianIsWithinOnePointOnGeneratedScenesWithOddCounts) {
  for (std::int64_t n : {2001, 50'000, 77'777}) {
    std::vector<Point> pts(static_cast<std::size_t>(n));
    generate_scene_points(3, 7, pts);
    for (int axis = 0; axis < 3; ++axis) {
      auto copy = pts;
      const auto r = split_points(copy, axis, SplitPoint::Median, bounds_of(copy));
      EXPECT_LE(std::llabs(r.low_count - (n - r.low_count)), 1);
      for (std::int64_t i = 0; i < r.low_count; ++i) EXPECT_LE(copy[std::size_t(i)][axis], r.value);
    }
  }
}

TEST(Split, MedianSetDoesNotDependOnInputOrder) {
  auto a = clustered_room();
  auto b = a;
  std::reverse(b.begin(), b.end());
  const auto ra = split_points(a, 1, SplitPoint::Median, bounds_of(a));
  const auto rb = split_points(b, 1, SplitPoint::Median, bounds_of(b));
  EXPECT_EQ(ra.low_box, rb.low_box);
  EXPECT_EQ(ra.value, rb.value);
}

TEST(Axis, ChooseAxisRules) {
  Bbox tall;
  tall.hi[0] = 2, tall.hi[1] = 3, tall.hi[2] = 9;
  EXPECT_EQ(choose_axis(AxisRule::Longest, true, tall), 2) << "z counts for longest";
  EXPECT_EQ(choose_axis(AxisRule::AlternateXY, true, tall), 0);
  EXPECT_EQ(choose_axis(AxisRule::AlternateXY, false, tall), 1) << "alternate-xy never uses z";
  Bbox wide;
  wide.hi[0] = 5, wide.hi[1] = 8, wide.hi[2] = 1;
  EXPECT_EQ(choose_axis(AxisRule::Longest, true, wide), 1);
}

// One scene with a bug under catch-everything: bisected down to the floor, a deep tree.
Simulator deep_tree(AxisRule axis, std::int64_t scenes = 1) {
  SimConfig c = sized_config(std::vector<std::int64_t>(std::size_t(scenes), 20'000), scenes, 1'000'000);
  c.policy = preset_original();
  c.policy.axis = axis;
  c.fault = Fault{BugKind::ShapeMismatch, 0};
  Simulator sim(c);
  sim.run_to_end();
  return sim;
}

TEST(Axis, AlternateXYGoesXThenYThenX) {
  for (std::int64_t scenes : {1, 3}) {
    Simulator sim = deep_tree(AxisRule::AlternateXY, scenes);
    const auto& ev = sim.log().events;
    int spatial_depth_seen = 0;
    for (const Event& e : ev) {
      if (e.origin != Origin::SpatialLow && e.origin != Origin::SpatialHigh) continue;
      // Depth of the spatial split along its path: 1 for the first spatial split of the scene.
      const int first_spatial_depth = scenes == 1 ? 1 : 2;
      const int k = e.depth - first_spatial_depth;
      EXPECT_EQ(e.axis, k % 2 == 0 ? 0 : 1) << "event " << e.id << " at depth " << e.depth;
      spatial_depth_seen = std::max(spatial_depth_seen, k + 1);
    }
    EXPECT_GE(spatial_depth_seen, 3) << "x, y and x again";
  }
}

TEST(Axis, LongestTakesTheParentsLargestExtent) {
  Simulator sim = deep_tree(AxisRule::Longest);
  const auto& ev = sim.log().events;
  int checked = 0;
  for (const Event& e : ev) {
    if (e.axis < 0) continue;
    const Bbox& parent = ev[std::size_t(e.parent)].bbox;
    int best = 0;
    for (int a = 1; a < 3; ++a)
      if (parent.extent(a) > parent.extent(best)) best = a;
    EXPECT_EQ(e.axis, best) << "event " << e.id;
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST(Axis, LongestSplitsOnZWhenZIsLongest) {
  // Points stacked in a column: z is the only extent worth splitting.
  std::vector<Point> column;
  for (int i = 0; i < 1000; ++i)
    column.push_back(Point{0.01f * float(i % 3), 0.01f * float(i % 5), float(i)});
  const Bbox box = bounds_of(column);
  const int axis = choose_axis(AxisRule::Longest, true, box);
  ASSERT_EQ(axis, 2);
  const auto r = split_points(column, axis, SplitPoint::Midpoint, box);
  EXPECT_EQ(r.low_count, 500);
}

// A single scene of `points` that OOMs whole (budget 999) and whose median halves fit.
Simulator floor_case(std::int64_t points) {
  SimConfig c = sized_config({points}, 1, 999);
  c.policy = preset_corrected();
  c.policy.floor = 500;
  c.policy.on_floor = FloorAction::Drop;  // the reference's floor (corrected keeps: defects_test.cpp)
  Simulator sim(c);
  sim.run_to_end();
  return sim;
}

TEST(Floor, FragmentOfExactlyFloorPointsIsDropped) {
  Simulator sim = floor_case(1000);
  const auto& ev = sim.log().events;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].outcome, Outcome::Oom);
  EXPECT_EQ(ev[1].outcome, Outcome::Dropped);
  EXPECT_EQ(ev[1].points, 500);
  EXPECT_EQ(ev[2].outcome, Outcome::Dropped);
  EXPECT_EQ(ev[2].points, 500);
  EXPECT_EQ(sim.totals().points_dropped, 1000);
  EXPECT_EQ(sim.totals().attempts, 1);
}

TEST(Floor, FragmentOfFloorPlusOneIsKept) {
  Simulator sim = floor_case(1002);
  const auto& ev = sim.log().events;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[1].outcome, Outcome::Ok);
  EXPECT_EQ(ev[1].points, 501);
  EXPECT_EQ(ev[2].outcome, Outcome::Ok);
  EXPECT_EQ(ev[2].points, 501);
  EXPECT_EQ(sim.totals().points_dropped, 0);
}

TEST(Floor, WholeScenesAreNeverDroppedByTheFloor) {
  // Scenes of 100 points each (below the floor) in a batch that OOMs: each is still tried.
  SimConfig c = sized_config({100, 100, 100}, 3, 250);
  Simulator sim(c);
  sim.run_to_end();
  EXPECT_EQ(sim.totals().ok_attempts, 3);
  EXPECT_EQ(sim.totals().points_dropped, 0);
}

}  // namespace
}  // namespace oomscope::sim
