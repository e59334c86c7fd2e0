// The out-of-memory rule of a snapshot's report with private pools (hand-built snapshots, JSON, read by the
// same reader as a pickle; no real file here has private pools): the largest free block that could serve
// the failed request comes from the pool that serves it, never from another pool's segments. A free block
// of a private pool serves only that pool's allocations, and the default pool's only the default's.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "core/snapshot/snapshot_analysis.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

std::string block(std::int64_t addr, std::int64_t size, bool live) {
  return "{\"address\": " + std::to_string(addr) + ", \"size\": " + std::to_string(size) +
         ", \"requested_size\": " + std::to_string(live ? size : 0) + ", \"state\": \"" +
         (live ? "active_allocated" : "inactive") + "\", \"frames\": []}";
}

// A large segment of `pool` on `stream` made of (size in MiB, live) blocks from `addr`.
std::string segment(std::int64_t addr, std::pair<int, int> pool, int stream,
                    const std::vector<std::pair<int, bool>>& blocks) {
  std::string bs;
  std::int64_t at = addr, allocated = 0;
  for (const auto& [mib, live] : blocks) {
    bs += (bs.empty() ? "" : ", ") + block(at, mib * MiB, live);
    at += mib * MiB;
    allocated += live ? mib * MiB : 0;
  }
  return "{\"device\": 0, \"address\": " + std::to_string(addr) +
         ", \"total_size\": " + std::to_string(at - addr) +
         ", \"allocated_size\": " + std::to_string(allocated) +
         ", \"active_size\": " + std::to_string(allocated) +
         ", \"requested_size\": " + std::to_string(allocated) + ", \"stream\": " + std::to_string(stream) +
         ", \"segment_type\": \"large\", \"segment_pool_id\": [" + std::to_string(pool.first) + ", " +
         std::to_string(pool.second) + "], \"is_expandable\": false, \"frames\": [], \"blocks\": [" + bs +
         "]}";
}

// An alloc on `stream` at `addr`, then a request of `request` bytes that fails with 2 MiB free on the device.
std::string trace(int stream, std::int64_t addr, std::int64_t size, std::int64_t request) {
  const std::string s = std::to_string(stream);
  return "[{\"action\": \"alloc\", \"addr\": " + std::to_string(addr) +
         ", \"size\": " + std::to_string(size) + ", \"stream\": " + s +
         ", \"time_us\": 10, \"frames\": []}, {\"action\": \"oom\", \"device_free\": " +
         std::to_string(2 * MiB) + ", \"size\": " + std::to_string(request) + ", \"stream\": " + s +
         ", \"time_us\": 20, \"frames\": []}]";
}

const analysis::DiagnosisLine& oom_line(const SnapshotReport& r) {
  for (const analysis::DiagnosisLine& l : r.diagnosis)
    if (l.rule.rfind("oom-", 0) == 0) return l;
  static const analysis::DiagnosisLine none;
  ADD_FAILURE() << "no oom line";
  return none;
}

constexpr std::int64_t A = 0x10000000, B = 0x20000000;

TEST(PoolOom, TheDefaultPoolsRequestIsNotServedByAPrivatePoolsFreeBlock) {
  // Default pool: 60 MiB with holes of 24 and 16 MiB. Private pool (0,1): 100 MiB free in one block. A 40
  // MiB request on the default stream fits in neither hole: fragmentation of the default pool, even though
  // the device holds a free block of 100 MiB (all segments together would say the request fitted).
  const std::string json = "{\"segments\": [" +
                           segment(A, {0, 0}, 0, {{16, true}, {24, false}, {4, true}, {16, false}}) + ", " +
                           segment(B, {0, 1}, 0, {{20, true}, {100, false}}) + "], \"device_traces\": [" +
                           trace(0, A + 40 * MiB, 4 * MiB, 40 * MiB) + "]}";
  NullProgress none;
  const auto snap = read_snapshot_from_memory(json, "two_pools.json", none);
  const SnapshotReport r = analyse_snapshot(*snap);
  ASSERT_TRUE(r.devices.at(0).oom);
  EXPECT_EQ(r.devices[0].state.largest_free_large, 100 * MiB);  // across pools: not the answer
  const analysis::DiagnosisLine& l = oom_line(r);
  EXPECT_EQ(l.rule, "oom-fragmentation");
  EXPECT_NE(l.cause.find("the largest free large-pool block of the default pool was 24.0 MiB"),
            std::string::npos)
      << l.cause;
  EXPECT_NE(l.cause.find("40.0 MiB was free in the large-pool blocks"), std::string::npos) << l.cause;
  EXPECT_NE(l.cause.find("100 MiB free in other pools' segments (largest 100 MiB) cannot serve it"),
            std::string::npos)
      << l.cause;
  ASSERT_FALSE(l.fixes.empty());
  EXPECT_EQ(l.fixes.front().saving_bytes, 40 * MiB);  // the default pool's free bytes, not the device's
  bool max_split = false;
  for (const auto& f : l.fixes) max_split |= f.action == "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:24";
  EXPECT_TRUE(max_split);
}

TEST(PoolOom, ARequestOnACapturingStreamIsServedByItsPrivatePool) {
  // Private pool (0,2) on stream 7: holes of 20 and 10 MiB; the default pool has a wholly free 200 MiB
  // segment. The allocation before the failure on stream 7 went into pool (0,2), so the 25 MiB request did
  // too: its largest free block is 20 MiB, not the default pool's 200 MiB.
  const std::string json =
      "{\"segments\": [" + segment(A, {0, 0}, 0, {{200, false}}) + ", " +
      segment(B, {0, 2}, 7, {{20, true}, {4, true}, {20, false}, {6, true}, {10, false}}) +
      "], \"device_traces\": [" + trace(7, B + 20 * MiB, 4 * MiB, 25 * MiB) + "]}";
  NullProgress none;
  const auto snap = read_snapshot_from_memory(json, "graph_pool.json", none);
  const SnapshotReport r = analyse_snapshot(*snap);
  const analysis::DiagnosisLine& l = oom_line(r);
  EXPECT_EQ(l.rule, "oom-fragmentation");
  EXPECT_NE(l.cause.find("the largest free large-pool block of the private pool (0,2) "
                         "(torch.cuda.graph_pool_handle() or a MemPool) was 20.0 MiB"),
            std::string::npos)
      << l.cause;
  EXPECT_NE(l.cause.find("previous allocation on its stream (trace entry 0)"), std::string::npos) << l.cause;
  EXPECT_NE(l.cause.find("200 MiB free in other pools' segments"), std::string::npos) << l.cause;
}

}  // namespace
}  // namespace oomscope::snapshot
