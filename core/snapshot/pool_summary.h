#pragma once
// The allocator state split by memory pool (segment_pool_id): the default pool (0,0) and each private pool
// of a CUDA graph or a MemPool, with what each reserves, holds and has free. A block of a private pool
// serves only allocations made into that pool, so free bytes there cannot serve the default pool's
// requests (docs/pytorch-files.md, "What report says about a snapshot").

#include <string>
#include <vector>

#include "core/snapshot/allocator_state.h"

namespace oomscope::snapshot {

struct PoolSummary {
  PoolId id{0, 0};
  bool known = true;  // false: segments re-created from segment_free entries, whose pool the trace omits
  std::size_t segments = 0, expandable_segments = 0;
  std::int64_t reserved = 0;
  std::int64_t allocated = 0, requested = 0;  // active_allocated blocks: Σ size, Σ requested
  std::size_t allocated_blocks = 0;
  std::int64_t pending_free = 0;  // active_pending_free blocks: Σ size
  std::size_t pending_free_blocks = 0, pinned_segments = 0;
  std::int64_t free = 0, largest_free = 0;
  std::int64_t whole_free = 0;  // free bytes in segments with no live block
  std::size_t whole_free_segments = 0;
};

// Default pool first, then private pools by id, then segments of unknown pool. Σ over pools of reserved,
// allocated, pending_free and free equals the state's figures.
std::vector<PoolSummary> pool_summaries(const AllocatorState& st);
bool has_private_pools(const std::vector<PoolSummary>& pools);
// "default pool", "private pool (0,2) (torch.cuda.graph_pool_handle() or a MemPool)", "private pool (7,0)
// (a CUDA graph capture's own pool)", "pool unknown (segments re-created from segment_free entries)".
std::string pool_name(const PoolSummary& p);
std::string pool_id_text(const PoolId& id);  // "(0,2)"

}  // namespace oomscope::snapshot
