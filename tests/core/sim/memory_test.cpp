// The memory model: bytes per point + fixed bytes, and the fragmentation left by an OOM.

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::scenes_of;
using testing::sized_config;

// Scene 0 (700 points) fits the 1,000-point budget alone; the batch of both (1,100) does not.
SimConfig frag_config(std::int64_t penalty) {
  SimConfig c = sized_config({700, 400}, 2, 1000);
  c.memory.fragmentation_penalty = penalty;
  return c;
}

const Event& attempt_of_scene(const Simulator& sim, std::int64_t scene) {
  for (const Event& e : sim.log().events)
    if (e.origin == Origin::Scene && scenes_of(sim.log(), e) == std::vector<std::int64_t>{scene}) return e;
  throw std::runtime_error("no attempt of the scene");
}

TEST(Memory, FragmentationPenaltyMakesAFittingRetryFail) {
  Simulator clean(frag_config(0));
  clean.run_to_end();
  EXPECT_EQ(attempt_of_scene(clean, 0).outcome, Outcome::Ok);

  // The batch order depends on the seed; cover both orders.
  int big_first = 0, small_first = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    SimConfig c = frag_config(400);
    c.seed = seed;
    Simulator fragmented(c);
    fragmented.run_to_end();
    const auto order = fragmented.batch_scenes(0);
    const Event& first_retry = fragmented.log().events[1];
    EXPECT_EQ(first_retry.available, 600) << "the OOM left 400 of 1,000 bytes unusable";
    EXPECT_EQ(first_retry.budget, 1000);
    const Event& big = attempt_of_scene(fragmented, 0);
    EXPECT_EQ(big.bytes_needed, 700);
    if (order[0] == 0) {
      ++big_first;
      EXPECT_EQ(big.outcome, Outcome::Oom) << "700 bytes fit the budget but not what the OOM left usable";
    } else {
      ++small_first;
      // Scene 1 went first, succeeded and cleared the fragmentation: scene 0 fits again.
      EXPECT_EQ(big.available, 1000);
      EXPECT_EQ(big.outcome, Outcome::Ok);
    }
  }
  EXPECT_GT(big_first, 0);
  EXPECT_GT(small_first, 0);
}

TEST(Memory, IdenticalRetryFailsWhileFragmentedAndPassesWhenClean) {
  // A single scene that fits the budget: clean it succeeds at once; right after an OOM of something else
  // it would not. Built so that the identical fragment is attempted in both states: batch of two identical
  // scenes of 600 points (1,200 > 1,000) then each alone.
  SimConfig c = sized_config({600, 600}, 2, 1000);
  c.policy = preset_corrected();  // median halves of 300, which fit even when fragmented
  c.policy.floor = 0;
  c.memory.fragmentation_penalty = 500;
  Simulator sim(c);
  sim.run_to_end();
  const auto& ev = sim.log().events;
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[0].outcome, Outcome::Oom);
  EXPECT_EQ(ev[1].points, 600);
  EXPECT_EQ(ev[1].available, 500);
  EXPECT_EQ(ev[1].outcome, Outcome::Oom) << "600 fits 1,000 yet fails after the OOM";
  // The twin scene is next in the queue (FIFO): an identical fragment, still fragmented, fails the same way.
  const Event& twin = ev[2];
  EXPECT_EQ(twin.points, 600);
  EXPECT_EQ(twin.origin, Origin::Scene);
  EXPECT_EQ(twin.available, 500);
  EXPECT_EQ(twin.outcome, Outcome::Oom);
  EXPECT_EQ(sim.totals().oom_attempts, 3);
  // The first success clears the fragmentation.
  EXPECT_EQ(ev[3].outcome, Outcome::Ok);
  EXPECT_EQ(ev[4].available, 1000);

  c.memory.fragmentation_penalty = 0;
  Simulator clean(c);
  clean.run_to_end();
  EXPECT_EQ(clean.totals().oom_attempts, 1);
}

TEST(Memory, BytesAreFixedPlusPerPoint) {
  EXPECT_EQ(attempt_bytes(MemoryModel{1024, 1 << 20, 0, 0}, 1000), (1 << 20) + 1024 * 1000);
  SimConfig c = sized_config({1000}, 1, 1 << 30);
  c.memory.bytes_per_point = 2048;
  c.memory.fixed_bytes = 4096;
  Simulator sim(c);
  sim.run_to_end();
  EXPECT_EQ(sim.log().events[0].bytes_needed, 4096 + 2048 * 1000);
}

TEST(Memory, OomCostsAPartialForwardPassPlusHostCopyAndFlush) {
  SimConfig c = sized_config({2000}, 1, 1000);
  c.policy.floor = 2000;  // halves dropped: a single attempt
  Simulator sim(c);
  sim.run_to_end();
  const Event& e = sim.log().events[0];
  ASSERT_EQ(e.outcome, Outcome::Oom);
  const auto& t = c.time;
  // Forward pass half done (1,000 of 2,000 bytes), then the fragment back to the host and empty_cache().
  const std::int64_t expected = t.fixed_ns_per_attempt + (t.forward_ps_per_point * 2000 / 2) / 1000 +
                                t.host_copy_ps_per_point * 2000 / 1000 + t.cache_flush_ns;
  EXPECT_EQ(e.duration_ns, expected);
  EXPECT_EQ(sim.totals().oom_free_time_ns, ok_attempt_ns(t, 2000));
}

}  // namespace
}  // namespace oomscope::sim
