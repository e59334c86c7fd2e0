// Per-pool figures of an allocator state. Pool ids follow PyTorch's MempoolId_t: (0,0) is the default
// pool; an id whose second value is set comes from torch.cuda.graph_pool_handle() or a MemPool, one whose
// first value is set from a CUDA graph capture that made its own pool (CUDAGraph.cpp's graph_pool_handle
// and capture_begin).

#include "core/snapshot/pool_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace oomscope::snapshot {

std::string pool_id_text(const PoolId& id) {
  return "(" + std::to_string(id.first) + "," + std::to_string(id.second) + ")";
}

std::string pool_name(const PoolSummary& p) {
  if (!p.known) return "pool unknown (segments re-created from segment_free entries)";
  if (p.id.first == 0 && p.id.second == 0) return "default pool";
  std::string name = "private pool " + pool_id_text(p.id);
  if (p.id.first == 0)
    name += " (torch.cuda.graph_pool_handle() or a MemPool)";
  else if (p.id.second == 0)
    name += " (a CUDA graph capture's own pool)";
  return name;
}

bool has_private_pools(const std::vector<PoolSummary>& pools) {
  return std::any_of(pools.begin(), pools.end(),
                     [](const PoolSummary& p) { return p.known && (p.id.first != 0 || p.id.second != 0); });
}

std::vector<PoolSummary> pool_summaries(const AllocatorState& st) {
  // Key: (unknown?, is private?, id) so the default pool comes first and unknown segments last.
  std::map<std::tuple<bool, bool, PoolId>, PoolSummary> by_pool;
  for (const StateSegment& s : st.segments) {
    const bool priv = s.pool.first != 0 || s.pool.second != 0;
    PoolSummary& p = by_pool[{!s.pool_known, priv, s.pool_known ? s.pool : PoolId{0, 0}}];
    p.id = s.pool_known ? s.pool : PoolId{0, 0};
    p.known = s.pool_known;
    ++p.segments;
    p.expandable_segments += s.expandable;
    p.reserved += s.size;
    p.free += s.free_bytes;
    p.largest_free = std::max(p.largest_free, s.largest_free);
    if (s.blocks.empty()) {
      p.whole_free += s.free_bytes;
      ++p.whole_free_segments;
    }
    std::size_t pending = 0;
    for (const StateBlock& b : s.blocks) {
      if (b.pending_free) {
        p.pending_free += b.size;
        ++pending;
      } else {
        p.allocated += b.size;
        p.requested += b.requested;
        ++p.allocated_blocks;
      }
    }
    p.pending_free_blocks += pending;
    p.pinned_segments += pending > 0 && pending == s.blocks.size();
  }
  std::vector<PoolSummary> out;
  out.reserve(by_pool.size());
  for (auto& [key, p] : by_pool) out.push_back(p);
  return out;
}

}  // namespace oomscope::snapshot
