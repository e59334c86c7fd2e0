#pragma once
// Between the model's chained blocks and segments as a snapshot lists them: building a start state from
// segments with their live blocks, and listing the model's segments (one per contiguous mapped range of
// an expandable segment, as PyTorch's snapshot() does).

#include <vector>

#include "core/allocator/allocator_ledger.h"
#include "core/allocator/block_arena.h"
#include "core/allocator/caching_allocator.h"
#include "core/allocator/expandable_space.h"

namespace oomscope::allocator {

// Creates the blocks of `segments` (live blocks as given, free gaps cached in their pools), reserves their
// bytes and counts their allocated blocks; pending-free blocks are appended to `pending`. Returns the live
// blocks' ids in the order given.
std::vector<BlockId> place_segments(BlockArena& arena, ExpandableSpace& expandable, AllocatorLedger& ledger,
                                    const std::vector<ModelSegment>& segments, std::uint64_t device_bytes,
                                    std::vector<BlockId>& pending);

std::vector<ModelSegment> list_segments(const BlockArena& arena, const ExpandableSpace& expandable);

}  // namespace oomscope::allocator
