#pragma once
// The per-pool part of `oomscope-cli diff` on two snapshots: for each memory pool (segment_pool_id) of either
// run's main device, what it reserves, holds allocated, has free and its largest free block, in A, in B and
// the change. A private pool's free blocks serve only that pool, so a diff of the device totals alone can
// hide where memory moved (weights in one pool, a KV cache in another). The figures are the report's
// allocator state (at the OOM entry when the trace has one, else the snapshot itself).

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

struct PoolFigures {
  std::int64_t reserved = 0, allocated = 0, free = 0, largest_free = 0;
};

struct PoolDiffRow {
  std::string name;          // pool_name(): "default pool", "private pool (0,2) (...)", ...
  std::optional<PoolId> id;  // none: segments re-created from segment_free entries (pool unknown)
  bool in_a = false, in_b = false;
  PoolFigures a, b;  // zero where the run has no such pool
};

struct PoolDiff {
  std::optional<std::int64_t> device_a, device_b;  // the main device of each run (none: no segments)
  std::optional<std::int64_t> oom_a, oom_b;        // the state is at this OOM entry, else the snapshot's end
  std::vector<PoolDiffRow> rows;                   // default pool, private pools by id, unknown last
};

PoolDiff diff_pools(const DeviceAnalysis* a, const DeviceAnalysis* b);
void write_pool_diff_text(std::ostream& o, const PoolDiff& d);
nlohmann::json pool_diff_json(const PoolDiff& d);

}  // namespace oomscope::snapshot
