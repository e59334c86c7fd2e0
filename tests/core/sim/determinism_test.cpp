// Same seed, same trace, byte for byte; a different seed, a different run.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::trace_text;

SimConfig config_with(std::uint64_t seed, SizeDist dist) {
  SimConfig c;
  c.scenes.count = 24;
  c.scenes.dist = dist;
  c.batch = 4;
  c.epochs = 2;
  c.seed = seed;
  c.fault = Fault{BugKind::NanLoss, 5};
  return c;
}

TEST(Determinism, SameSeedSameTraceBytes) {
  for (auto dist : {SizeDist::Uniform, SizeDist::HeavyTailed}) {
    Simulator a(config_with(42, dist)), b(config_with(42, dist));
    a.run_to_end();
    b.run_to_end();
    const std::string ta = trace_text(a);
    ASSERT_GT(a.log().events.size(), 20u);
    EXPECT_EQ(ta, trace_text(b));
  }
}

TEST(Determinism, DifferentSeedDifferentRun) {
  Simulator a(config_with(1, SizeDist::Uniform)), b(config_with(2, SizeDist::Uniform));
  a.run_to_end();
  b.run_to_end();
  EXPECT_NE(trace_text(a), trace_text(b));
  EXPECT_NE(std::vector<std::int64_t>(a.scene_sizes().begin(), a.scene_sizes().end()),
            std::vector<std::int64_t>(b.scene_sizes().begin(), b.scene_sizes().end()));
}

TEST(Determinism, EpochsDrawDifferentOrdersOfTheSameScenes) {
  Simulator sim(config_with(7, SizeDist::Uniform));
  std::vector<std::int64_t> first, second;
  for (std::int64_t b = 0; b < 6; ++b)
    for (auto s : sim.batch_scenes(b)) first.push_back(s);
  for (std::int64_t b = 6; b < 12; ++b)
    for (auto s : sim.batch_scenes(b)) second.push_back(s);
  EXPECT_NE(first, second);
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.size(), 24u);
}

TEST(Determinism, GeneratedPointsAreAFunctionOfSeedAndScene) {
  std::vector<Point> a(5000), b(5000), c(5000);
  generate_scene_points(11, 3, a);
  generate_scene_points(11, 3, b);
  generate_scene_points(12, 3, c);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(Point)));
  EXPECT_NE(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(Point)));
}

}  // namespace
}  // namespace oomscope::sim
