// Private pools and pending-free blocks on a hand-built snapshot (JSON, read through the same reader as a
// pickle): a verl/vLLM-style layout with weights in pool (0,1), a KV cache in (0,2), a CUDA graph's own
// pool (3,0) and the default pool, no trace (history recording off). No real file has private pools or
// pending-free blocks (tests/data/README.md), so the figures are the ones the snapshot is built with.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/snapshot/snapshot_json.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/snapshot/snapshot_text.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

std::string block(std::int64_t addr, std::int64_t size, std::int64_t req, const char* state) {
  return "{\"address\": " + std::to_string(addr) + ", \"size\": " + std::to_string(size) +
         ", \"requested_size\": " + std::to_string(req) + ", \"state\": \"" + state + "\", \"frames\": []}";
}

std::string segment(std::int64_t addr, std::int64_t total, std::int64_t allocated, std::int64_t active,
                    std::pair<int, int> pool, const char* type, const std::string& blocks) {
  return "{\"device\": 0, \"address\": " + std::to_string(addr) +
         ", \"total_size\": " + std::to_string(total) + ", \"allocated_size\": " + std::to_string(allocated) +
         ", \"active_size\": " + std::to_string(active) +
         ", \"requested_size\": 0, \"stream\": 0, \"segment_type\": \"" + type +
         "\", \"segment_pool_id\": [" + std::to_string(pool.first) + ", " + std::to_string(pool.second) +
         "], \"is_expandable\": false, \"frames\": [], \"blocks\": [" + blocks + "]}";
}

std::shared_ptr<const Snapshot> pools_snapshot() {
  const std::int64_t a = 0x10000000, bb = 0x20000000, c = 0x40000000, d = 0x70000000;
  const std::string json =
      "{\"segments\": [" +
      segment(a, 20 * MiB, 8 * MiB, 12 * MiB, {0, 0}, "large",
              block(a, 8 * MiB, 8 * MiB - 100, "active_allocated") + ", " +
                  block(a + 8 * MiB, 4 * MiB, 4 * MiB, "active_pending_free") + ", " +
                  block(a + 12 * MiB, 8 * MiB, 0, "inactive")) +
      ", " +
      segment(bb, 100 * MiB, 96 * MiB, 96 * MiB, {0, 1}, "large",
              block(bb, 96 * MiB, 96 * MiB, "active_allocated") + ", " +
                  block(bb + 96 * MiB, 4 * MiB, 0, "inactive")) +
      ", " +
      segment(c, 400 * MiB, 390 * MiB, 390 * MiB, {0, 2}, "large",
              block(c, 390 * MiB, 390 * MiB, "active_allocated") + ", " +
                  block(c + 390 * MiB, 10 * MiB, 0, "inactive")) +
      ", " +
      // The docstring's spelling of the pending state.
      segment(d, 2 * MiB, 0, 2 * MiB, {3, 0}, "small", block(d, 2 * MiB, 2 * MiB, "active_awaiting_free")) +
      "], \"device_traces\": [[]]}";
  NullProgress none;
  return read_snapshot_from_memory(json, "pools.json", none);
}

TEST(PoolsAndPending, EachPoolIsReportedAndTheTotalsReconcile) {
  const auto snap = pools_snapshot();
  const SnapshotReport r = analyse_snapshot(*snap);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceAnalysis& d = r.devices[0];
  const AllocatorState& st = d.state;
  ASSERT_EQ(d.pools.size(), 4u);
  EXPECT_EQ(pool_name(d.pools[0]), "default pool");
  EXPECT_EQ(d.pools[1].id, (PoolId{0, 1}));
  EXPECT_EQ(d.pools[2].id, (PoolId{0, 2}));
  EXPECT_EQ(d.pools[3].id, (PoolId{3, 0}));
  EXPECT_NE(pool_name(d.pools[2]).find("MemPool"), std::string::npos);
  EXPECT_NE(pool_name(d.pools[3]).find("CUDA graph capture"), std::string::npos);
  EXPECT_EQ(d.pools[0].reserved, 20 * MiB);
  EXPECT_EQ(d.pools[0].allocated, 8 * MiB);
  EXPECT_EQ(d.pools[0].pending_free, 4 * MiB);
  EXPECT_EQ(d.pools[0].free, 8 * MiB);
  EXPECT_EQ(d.pools[1].allocated, 96 * MiB);
  EXPECT_EQ(d.pools[1].largest_free, 4 * MiB);
  EXPECT_EQ(d.pools[2].reserved, 400 * MiB);
  EXPECT_EQ(d.pools[2].allocated, 390 * MiB);
  EXPECT_EQ(d.pools[2].largest_free, 10 * MiB);
  EXPECT_EQ(d.pools[3].pending_free, 2 * MiB);
  EXPECT_EQ(d.pools[3].pinned_segments, 1u);
  std::int64_t reserved = 0, allocated = 0, pending = 0, free = 0;
  for (const PoolSummary& p : d.pools)
    reserved += p.reserved, allocated += p.allocated, pending += p.pending_free, free += p.free;
  EXPECT_EQ(reserved, st.reserved);
  EXPECT_EQ(allocated, st.active_allocated_bytes);
  EXPECT_EQ(pending, st.pending_free_bytes);
  EXPECT_EQ(free, st.free_bytes);
  EXPECT_EQ(reserved, allocated + pending + free);
  // 'allocated' is what the snapshot's allocated_size says: active_allocated blocks only, rounded.
  EXPECT_EQ(st.active_allocated_bytes, snap->allocated_bytes());
  EXPECT_EQ(st.active_requested_bytes, 8 * MiB - 100 + 96 * MiB + 390 * MiB);
  EXPECT_EQ(st.pending_free_blocks, 2u);
  EXPECT_EQ(st.pending_free_segments, 2u);
  EXPECT_EQ(st.pinned_by_pending, 1u);
  EXPECT_EQ(r.recording.pending_free_blocks, 2u);
  EXPECT_EQ(r.recording.private_pool_segments, 3u);
  EXPECT_FALSE(r.recording.history_recorded);
}

TEST(PoolsAndPending, ADeviceMostlyAllocatedIsNeverNothingToReport) {
  const auto snap = pools_snapshot();
  const SnapshotReport r = analyse_snapshot(*snap);
  ASSERT_FALSE(r.diagnosis.empty());
  const analysis::DiagnosisLine* held = nullptr;
  for (const auto& l : r.diagnosis)
    if (l.rule == "memory-held") held = &l;
  ASSERT_NE(held, nullptr);
  EXPECT_NE(held->finding.find("494 MiB of 522 MiB reserved is allocated (94.6 %)"), std::string::npos)
      << held->finding;
  EXPECT_NE(held->cause.find("private pool (0,2)"), std::string::npos) << held->cause;
  EXPECT_NE(held->cause.find("with no trace"), std::string::npos) << held->cause;
  std::ostringstream text;
  write_snapshot_text(text, *snap, r, 10);
  const std::string t = text.str();
  EXPECT_EQ(t.find("nothing to report"), std::string::npos);
  EXPECT_EQ(t.find("at the start of the trace"), std::string::npos);
  EXPECT_NE(t.find("_record_memory_history() was off"), std::string::npos);
  EXPECT_NE(t.find("by pool"), std::string::npos);
  EXPECT_NE(t.find("private pool (0,1)"), std::string::npos);
  EXPECT_NE(t.find("pending free: 6.00 MiB in 2 blocks"), std::string::npos) << t;
}

TEST(PoolsAndPending, JsonAllocatedBytesHoldsAllocatedNotRequested) {
  const auto snap = pools_snapshot();
  const SnapshotReport r = analyse_snapshot(*snap);
  const nlohmann::json j = snapshot_report_json(*snap, r);
  const nlohmann::json& st = j.at("devices").at(0).at("allocator_state");
  EXPECT_EQ(st.at("allocated_bytes").get<std::int64_t>(), snap->allocated_bytes());
  EXPECT_EQ(st.at("requested_bytes").get<std::int64_t>(), 8 * MiB - 100 + 96 * MiB + 390 * MiB);
  EXPECT_EQ(st.at("live_requested_bytes").get<std::int64_t>(),
            8 * MiB - 100 + 96 * MiB + 390 * MiB + 6 * MiB);
  EXPECT_EQ(st.at("pending_free_bytes").get<std::int64_t>(), 6 * MiB);
  ASSERT_EQ(st.at("pools").size(), 4u);
  EXPECT_EQ(st.at("pools").at(2).at("pool_id"), nlohmann::json::array({0, 2}));
  EXPECT_TRUE(st.at("pools").at(2).at("private").get<bool>());
  EXPECT_FALSE(j.at("snapshot").at("recording").at("history_recorded").get<bool>());
}

}  // namespace
}  // namespace oomscope::snapshot
