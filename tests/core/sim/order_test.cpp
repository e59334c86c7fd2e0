// The queue discipline of the reference: FIFO, per-scene split before any spatial split.

#include <gtest/gtest.h>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::scenes_of;
using testing::sized_config;

TEST(Order, AttemptsAreFirstInFirstOut) {
  // Batch of three OOMs; scene 0 (1,500 points) OOMs alone; scenes 1 and 2 fit.
  SimConfig c = sized_config({1500, 800, 700}, 3, 1000);
  Simulator sim(c);
  sim.run_to_end();
  const auto order = sim.batch_scenes(0);
  ASSERT_EQ(order.size(), 3u);
  const auto& ev = sim.log().events;
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[0].origin, Origin::Batch);
  EXPECT_EQ(scenes_of(sim.log(), ev[0]), order);
  // The three scenes in batch order, then the halves of scene 0, queued behind scenes 1 and 2 (a queue,
  // not a recursion: the halves do not jump ahead).
  std::int64_t scene0_event = -1;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ev[1 + i].origin, Origin::Scene);
    EXPECT_EQ(ev[1 + i].parent, 0);
    EXPECT_EQ(scenes_of(sim.log(), ev[1 + i]), std::vector<std::int64_t>{order[i]});
    if (order[i] == 0) scene0_event = ev[1 + i].id;
  }
  ASSERT_GE(scene0_event, 0);
  EXPECT_EQ(ev[std::size_t(scene0_event)].outcome, Outcome::Oom);
  EXPECT_EQ(ev[4].origin, Origin::SpatialLow);
  EXPECT_EQ(ev[5].origin, Origin::SpatialHigh);
  EXPECT_EQ(ev[4].parent, scene0_event);
  EXPECT_EQ(ev[5].parent, scene0_event);
  EXPECT_EQ(ev[4].points + ev[5].points, 1500);
  for (std::size_t i = 0; i < ev.size(); ++i) EXPECT_EQ(ev[i].step, std::int64_t(i));
}

TEST(Order, HalvesOfHalvesComeAfterEveryEarlierFragment) {
  // A single scene that needs two levels: the queue is processed breadth-first.
  SimConfig c = sized_config({4000}, 1, 1100);
  c.policy = preset_corrected();  // median: 2,000 + 2,000, then 1,000 x 4
  Simulator sim(c);
  sim.run_to_end();
  const auto& ev = sim.log().events;
  ASSERT_EQ(ev.size(), 7u);
  for (std::size_t i = 1; i < ev.size(); ++i) EXPECT_LE(ev[i - 1].depth, ev[i].depth) << "event " << i;
  EXPECT_EQ(ev[3].parent, 1);
  EXPECT_EQ(ev[4].parent, 1);
  EXPECT_EQ(ev[5].parent, 2);
  EXPECT_EQ(ev[6].parent, 2);
}

TEST(Order, PerSceneSplitBeforeSpatialSplit) {
  // Every scene is too big alone, yet the batch is first cut into whole scenes.
  SimConfig c = sized_config({3000, 3000, 3000, 3000}, 4, 2000);
  Simulator sim(c);
  sim.run_to_end();
  const auto& ev = sim.log().events;
  ASSERT_GT(ev.size(), 5u);
  for (std::size_t i = 1; i <= 4; ++i) {
    EXPECT_EQ(ev[i].origin, Origin::Scene);
    EXPECT_EQ(ev[i].scenes_count, 1u);
  }
  for (const Event& e : ev) {
    if (e.axis < 0) continue;
    const Event& parent = ev[std::size_t(e.parent)];
    EXPECT_EQ(parent.scenes_count, 1u) << "spatial split of a fragment holding several scenes";
    EXPECT_NE(parent.origin, Origin::Batch);
  }
}

TEST(Order, SceneFragmentsKeepTheParentsAxisFlag) {
  // Scene fragments inherit split_on_x = true from the batch, so the first spatial split is on x.
  SimConfig c = sized_config({3000, 3000}, 2, 2000);
  Simulator sim(c);
  sim.run_to_end();
  for (const Event& e : sim.log().events)
    if (e.depth == 2) {
      EXPECT_EQ(e.axis, 0);
    }
}

}  // namespace
}  // namespace oomscope::sim
