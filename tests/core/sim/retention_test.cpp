// Bounded memory: a simulator that keeps no events (the CLI) or only the first N (the GUI) reaches the same
// counters as one that keeps everything, and hands every event to the sink exactly once, in order.

#include <gtest/gtest.h>

#include <sstream>

#include "core/util/error.h"
#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

SimConfig busy_config() {
  SimConfig c = default_config();
  c.scenes.count = 40;
  c.epochs = 2;
  c.fault = Fault{BugKind::ShapeMismatch, 3};
  return c;
}

TEST(Retention, StreamingGivesTheSameCountersAndEvents) {
  Simulator full(busy_config());
  full.run_to_end();
  ASSERT_GT(full.log().events.size(), 100u);

  Simulator streamed(busy_config());
  streamed.keep_events(0);
  std::ostringstream seen;
  TraceWriter writer(seen, TraceHeader{});
  std::int64_t count = 0, next = 0;
  streamed.set_event_sink([&](const Event& e, std::span<const std::uint32_t> scenes) {
    EXPECT_EQ(e.id, next++);
    writer.write_event(e, scenes);
    ++count;
  });
  streamed.run_to_end();
  EXPECT_EQ(streamed.totals(), full.totals());
  EXPECT_EQ(count, std::int64_t(full.log().events.size()));
  EXPECT_EQ(streamed.events_made(), count);
  EXPECT_TRUE(streamed.log().events.empty());
  EXPECT_FALSE(streamed.log_complete());
  EXPECT_FALSE(streamed.step_back());

  std::ostringstream all;
  TraceWriter w2(all, TraceHeader{});
  for (const Event& e : full.log().events) w2.write_event(e, full.log());
  EXPECT_EQ(seen.str(), all.str());
}

TEST(Retention, KeepingTheFirstEventsStopsThereAndStillCountsEverything) {
  Simulator full(busy_config());
  full.run_to_end();
  Simulator kept(busy_config());
  kept.keep_events(50);
  kept.run_to_end();
  EXPECT_EQ(kept.totals(), full.totals());
  ASSERT_GE(kept.log().events.size(), 50u);
  ASSERT_LE(kept.log().events.size(), 53u);  // sealed at the first step boundary at or past 50
  for (std::size_t i = 0; i < kept.log().events.size(); ++i)
    EXPECT_EQ(testing::event_line(kept.log(), kept.log().events[i]),
              testing::event_line(full.log(), full.log().events[i]));
  EXPECT_FALSE(kept.last_step_events().empty());
  EXPECT_EQ(kept.last_step_events().back().id, full.log().events.back().id);
}

TEST(Retention, StepBackWorksWhileTheLogIsComplete) {
  Simulator sim(busy_config());
  sim.keep_events(1'000'000);
  for (int i = 0; i < 30; ++i) sim.step();
  const Totals before = sim.totals();
  sim.step();
  ASSERT_TRUE(sim.step_back());
  EXPECT_EQ(sim.totals(), before);
  EXPECT_TRUE(sim.log_complete());
}

}  // namespace
}  // namespace oomscope::sim

namespace oomscope::sim {
namespace {

// A 200,000-point scene in a budget where only single points fit, with a floor of 0: bisected level by
// level, its queue passes the limit (8,000,000 by default, 10,000 here). The run stops with an error.
TEST(Retention, ABatchThatWouldExhaustMemoryStopsWithAnError) {
  SimConfig c = testing::sized_config({200'000}, 1, 1);
  c.policy = preset_corrected();
  c.policy.floor = 0;
  c.policy.on_floor = FloorAction::Drop;
  Simulator sim(c);
  sim.keep_events(0);
  sim.set_queue_limit(10'000);
  try {
    sim.run_to_end();
    FAIL() << "expected the queue limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 10000 waiting fragments"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Raise --floor (now 0)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace oomscope::sim
