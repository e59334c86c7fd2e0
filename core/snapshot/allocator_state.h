#pragma once
// The caching allocator's segments and blocks at any raw trace index of one device, reconstructed
// backwards from the snapshot by undoing the later events (memory_viz's Allocator State History,
// docs/snapshot-format.md section 3), with free space, rounding waste and fragmentation.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/snapshot/snapshot.h"

namespace oomscope::snapshot {

struct StateBlock {
  std::uint64_t addr = 0;
  std::int64_t size = 0;       // rounded (from the snapshot, else the request rounded up to 512)
  std::int64_t requested = 0;  // requested bytes
  bool pending_free = false;   // freed by the user, waiting on a stream event
  FramesId frames = 0;
};

using PoolId = std::pair<std::int64_t, std::int64_t>;  // segment_pool_id; (0,0) = the default pool

struct StateSegment {
  std::uint64_t address = 0;
  std::int64_t size = 0;
  bool large = true;
  PoolId pool{0, 0};
  bool pool_known = true;  // false: re-created by undoing a segment_free; the trace does not name its pool
  bool expandable = false;
  std::vector<StateBlock> blocks;  // live blocks, address order
  std::int64_t free_bytes = 0;
  std::int64_t largest_free = 0;  // the largest gap between live blocks
};

struct AllocatorState {
  std::int64_t device = 0;
  std::int64_t index = 0;              // after this raw entry; -1 before the first; the snapshot is the last
  std::vector<StateSegment> segments;  // address order
  std::int64_t reserved = 0;           // Σ segment sizes
  std::int64_t allocated = 0;  // Σ requested of live blocks, pending-free ones too (memory_viz's header)
  std::int64_t allocated_rounded = 0;  // Σ size of live blocks, pending-free ones too
  // Held by tensors (active_allocated): Σ size (the snapshot's allocated_size at the end) and Σ requested.
  std::int64_t active_allocated_bytes = 0, active_requested_bytes = 0;
  std::size_t active_allocated_blocks = 0;
  // Freed by the user but waiting on a stream event (active_pending_free): not reusable yet.
  std::int64_t pending_free_bytes = 0;
  std::size_t pending_free_blocks = 0;
  std::size_t pending_free_segments = 0;  // segments holding a pending-free block
  std::size_t pinned_by_pending =
      0;  // of those, segments that hold nothing else (freed once the events complete)
  std::int64_t rounding_waste = 0;  // Σ (size − requested) of live blocks
  std::int64_t free_bytes = 0;      // reserved − Σ rounded live
  std::int64_t largest_free = 0, largest_free_large = 0, largest_free_small = 0;
  std::size_t live_blocks = 0;
  std::size_t outside_segments = 0;  // re-created blocks that fall in no known segment
  // 1 − largest free / total free: 0 when all free space is one block, near 1 when it is in crumbs.
  double fragmentation() const {
    return free_bytes > 0 ? 1.0 - static_cast<double>(largest_free) / static_cast<double>(free_bytes) : 0.0;
  }
};

// index is clamped to [-1, n-1] where n is the device's trace length (n-1 or an empty trace: the snapshot
// itself).
AllocatorState allocator_state_at(const Snapshot& snap, std::int64_t device, std::int64_t index);

}  // namespace oomscope::snapshot
