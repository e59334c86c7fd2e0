#pragma once
// The expandable segments of the model (expandable_segments:True): finding the lowest address where a
// request fits in free and unmapped blocks of the stream's segment (or reserving a new segment), mapping the
// pages it needs, and unmapping whole free pages when cached memory is released.

#include <cstdint>
#include <vector>

#include "core/allocator/allocator_ledger.h"
#include "core/allocator/block_arena.h"
#include "core/allocator/expandable_segment.h"

namespace oomscope::allocator {

class ExpandableSpace {
 public:
  ExpandableSpace(BlockArena& arena, AllocatorLedger& ledger, AddressSource& addresses);

  // A mapped free block of at least `size` bytes (taken out of its pool), or kNoBlock when the pages
  // could not be mapped within the capacity. `device_bytes` sizes a new segment's virtual range
  // (1 1/8 of the device's memory, as PyTorch reserves).
  BlockId allocate(std::int64_t stream, bool small_pool, std::uint64_t size, std::uint64_t device_bytes);
  // Unmaps the whole pages inside the free block; releases the segment when nothing of it stays mapped.
  void unmap(BlockId block);
  // A segment reconstructed from the start state: [base, base+size) mapped, page_size pages.
  std::uint32_t adopt(std::uint64_t base, std::uint64_t va_size, std::int64_t stream, bool small_pool);
  PageRange map_pages(std::uint32_t segment, std::uint64_t ptr, std::uint64_t size);

  const std::vector<ExpandableSegment>& segments() const { return segments_; }

 private:
  BlockId find(std::int64_t stream, bool small_pool, std::uint64_t size, std::uint64_t device_bytes);
  bool map_block(BlockId to_map, std::uint64_t size);
  bool allocatable(BlockId b) const;

  BlockArena& arena_;
  AllocatorLedger& ledger_;
  AddressSource& addresses_;
  std::vector<ExpandableSegment> segments_;
};

}  // namespace oomscope::allocator
