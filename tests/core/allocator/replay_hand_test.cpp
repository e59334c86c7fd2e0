// Replays of hand-built snapshots (JSON, the form memory_viz also reads) with what no real snapshot here
// has: an empty_cache() call, a free that waits for another stream, an oom entry with device_free, and a
// recording the model cannot explain.

#include <gtest/gtest.h>

#include <string>

#include "core/allocator/replay.h"
#include "core/allocator/whatif.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::allocator {
namespace {

constexpr std::uint64_t MiB = kMiB;
constexpr std::uint64_t A = 0x7f0000000000;  // the recorded segments' addresses
constexpr std::uint64_t B = 0x7f0040000000;

std::string entry(const char* action, std::uint64_t addr, std::uint64_t size, int t) {
  return std::string(R"({"action": ")") + action + R"(", "addr": )" + std::to_string(addr) + R"(, "size": )" +
         std::to_string(size) + R"(, "stream": 0, "time_us": )" + std::to_string(1000 + t) +
         R"(, "frames": []})";
}

std::string snapshot_json(const std::string& segments, const std::vector<std::string>& trace) {
  std::string t;
  for (const std::string& e : trace) t += (t.empty() ? "" : ", ") + e;
  return R"({"segments": [)" + segments + R"(], "device_traces": [[)" + t +
         R"(]], "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,)"
         R"( "garbage_collection_threshold": 0.0, "expandable_segments": false,)"
         R"( "roundup_power2_divisions": {"1": 0, "2": 0}}})";
}

std::string one_block_segment(std::uint64_t addr, std::uint64_t size) {
  const std::string s = std::to_string(size);
  return R"({"device": 0, "address": )" + std::to_string(addr) + R"(, "total_size": )" + s +
         R"(, "allocated_size": )" + s + R"(, "active_size": )" + s + R"(, "requested_size": )" + s +
         R"(, "stream": 0, "segment_type": "large", "segment_pool_id": [0, 0], "is_expandable": false,)"
         R"( "frames": [], "blocks": [{"address": )" +
         std::to_string(addr) + R"(, "size": )" + s + R"(, "requested_size": )" + s +
         R"(, "state": "active_allocated", "frames": []}]})";
}

// An empty device; a 20 MiB segment used, freed (one free waits for another stream) and released by
// empty_cache(); a 40 MiB segment; then a 60 MiB request that fails with 10 MiB free on the device.
std::vector<std::string> hand_trace() {
  return {entry("segment_alloc", A, 20 * MiB, 0),
          entry("alloc", A, 8 * MiB, 1),
          entry("alloc", A + 8 * MiB, 8 * MiB, 2),
          entry("free_requested", A, 8 * MiB, 3),
          entry("free_completed", A, 8 * MiB, 4),
          entry("free_requested", A + 8 * MiB, 8 * MiB, 5),  // completes at 7: used on another stream
          entry("alloc", A + 16 * MiB, 4 * MiB, 6),          // best fit: the 4 MiB tail, not the 8 MiB hole
          entry("free_completed", A + 8 * MiB, 8 * MiB, 7),
          entry("free_requested", A + 16 * MiB, 4 * MiB, 8),
          entry("free_completed", A + 16 * MiB, 4 * MiB, 9),
          entry("segment_free", A, 20 * MiB, 10),  // torch.cuda.empty_cache()
          entry("segment_alloc", B, 40 * MiB, 11),
          entry("alloc", B, 40 * MiB, 12),
          entry("oom", 10 * MiB, 60 * MiB, 13)};
}

std::shared_ptr<const snapshot::Snapshot> read(const std::string& json) {
  NullProgress none;
  return snapshot::read_snapshot_from_memory(json, "hand.json", none);
}

TEST(HandReplay, ReproducesEmptyCachePendingFreeAndTheOom) {
  const auto snap = read(snapshot_json(one_block_segment(B, 40 * MiB), hand_trace()));
  ReplayOptions o;
  o.validate = true;
  const ReplayResult r = replay(*snap, o);
  ASSERT_TRUE(r.validation);
  const Validation& v = *r.validation;
  EXPECT_EQ(v.segment_allocs_recorded, (std::vector<std::uint64_t>{20 * MiB, 40 * MiB}));
  EXPECT_EQ(v.segment_allocs_replayed, v.segment_allocs_recorded);
  EXPECT_EQ(v.segment_events_matched, 3u);
  EXPECT_EQ(v.allocs, 4u);
  EXPECT_EQ(v.allocs_at_recorded_address, 4u);
  EXPECT_TRUE(v.final_layout_matched);
  EXPECT_TRUE(v.matched) << (v.first_divergence ? v.first_divergence->what : "");
  ASSERT_TRUE(r.first_oom);
  EXPECT_TRUE(r.first_oom->recorded);
  EXPECT_EQ(r.first_oom->trace_index, 13);
  EXPECT_EQ(r.first_oom->detail.alloc_size, 60 * MiB);
  EXPECT_EQ(r.peak_reserved, 40 * MiB);
  ASSERT_TRUE(r.oom_capacity);
  EXPECT_EQ(*r.oom_capacity, 50 * MiB);  // 40 MiB reserved, nothing cached, 10 MiB free
}

TEST(HandReplay, AWrongRecordingIsCaughtAtItsEntry) {
  auto trace = hand_trace();
  trace[6] = entry("alloc", A + 8 * MiB, 4 * MiB, 6);  // the real allocator never picks the pending block
  trace[8] = entry("free_requested", A + 8 * MiB, 4 * MiB, 8);
  trace[9] = entry("free_completed", A + 8 * MiB, 4 * MiB, 9);
  const auto snap = read(snapshot_json(one_block_segment(B, 40 * MiB), trace));
  ReplayOptions o;
  o.validate = true;
  const ReplayResult r = replay(*snap, o);
  ASSERT_TRUE(r.validation);
  EXPECT_FALSE(r.validation->matched);
  ASSERT_TRUE(r.validation->first_divergence);
  EXPECT_EQ(r.validation->first_divergence->trace_index, 6);
  EXPECT_EQ(r.validation->allocs_at_recorded_address, 3u);
}

TEST(HandReplay, WhatIfUsesTheOomCapacityAndExplainsTheFailure) {
  const auto snap = read(snapshot_json(one_block_segment(B, 40 * MiB), hand_trace()));
  NullProgress none;
  const WhatIfResult w = run_whatif(*snap, {}, none);
  EXPECT_TRUE(w.validated());
  ASSERT_TRUE(w.capacity);
  EXPECT_EQ(*w.capacity, 50 * MiB);
  EXPECT_TRUE(w.capacity_from_oom);
  // 40 + 60 MiB never fit in 50 MiB, whatever the setting; the search finds 100 MiB (the unlimited peak).
  for (const Scenario& s : w.scenarios) EXPECT_TRUE(s.result.first_oom) << s.name;
  ASSERT_FALSE(w.capacity_searches.empty());
  ASSERT_TRUE(w.capacity_searches[0].capacity);
  EXPECT_EQ(*w.capacity_searches[0].capacity, 100 * MiB);
}

TEST(HandReplay, NoTraceIsAnErrorNamingTheFile) {
  const auto snap = read(snapshot_json(one_block_segment(B, 40 * MiB), {}));
  NullProgress none;
  try {
    run_whatif(*snap, {}, none);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hand.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("no allocator trace"), std::string::npos);
  }
}

}  // namespace
}  // namespace oomscope::allocator
