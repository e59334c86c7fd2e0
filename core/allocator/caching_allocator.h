#pragma once
// A forward model of one device of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp,
// DeviceCachingAllocator; docs/allocator-model.md): request rounding, the small and large pools, segment
// sizes, best fit by (stream, size, address), splitting and merging, max_split_size, expandable segments,
// garbage collection and the release-cached-blocks-and-retry path before an out-of-memory error. No CUDA:
// the device is a capacity, addresses come from an AddressSource. Single-threaded; not copyable.

#include <cstdint>
#include <vector>

#include "core/allocator/allocator_config.h"
#include "core/allocator/allocator_ledger.h"
#include "core/allocator/block_arena.h"
#include "core/allocator/expandable_space.h"

namespace oomscope::allocator {

// What the allocator saw when a request failed.
struct OomDetail {
  std::uint64_t requested = 0, rounded = 0, alloc_size = 0;
  std::int64_t stream = 0;
  bool small_pool = false;
  std::uint64_t largest_free_in_pool = 0;  // the largest free block of the pool and stream after the retry
  std::uint64_t cached_free = 0;           // Σ cached free blocks of every pool before the retry
  std::uint64_t released_by_retry = 0;     // reserved bytes the retry released (segment_free / unmap)
  std::uint64_t reserved_after = 0, allocated_after = 0, capacity = 0;
};

enum class ModelBlockState : std::uint8_t { Allocated, PendingFree, Free };

struct ModelBlock {
  std::uint64_t addr = 0, size = 0, requested = 0;
  ModelBlockState state = ModelBlockState::Free;
};

struct ModelSegment {
  std::uint64_t addr = 0, size = 0;
  std::int64_t stream = 0;
  bool large = true;
  bool expandable = false;
  std::vector<ModelBlock> blocks;  // address order, tiling the segment
};

class CachingAllocator {
 public:
  // device_bytes: the device's memory for sizing expandable segments' virtual ranges.
  CachingAllocator(const AllocatorConfig& config, std::uint64_t capacity, AddressSource& addresses,
                   std::uint64_t device_bytes);
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Start state: the segments that already exist, each with its live blocks (allocated or pending free) in
  // address order; the gaps between them become cached free blocks. Expandable ones of one stream and pool
  // become one expandable segment from the lowest of them. Returns the ids of every live block, in the
  // order given.
  std::vector<BlockId> add_segments(const std::vector<ModelSegment>& segments);

  // malloc(): kNoBlock when the request fails (then *oom, when given, says why).
  BlockId malloc(std::uint64_t size, std::int64_t stream, std::int64_t tag = -1, OomDetail* oom = nullptr);
  // free(): `deferred`: the block was used on other streams, so it is only freed by complete_free() (or a
  // retry's synchronisation) later.
  void free(BlockId block, bool deferred);
  void complete_free(BlockId block);
  // torch.cuda.empty_cache(): frees every cached unsplit segment (unmaps free pages of expandable ones).
  void empty_cache();

  void set_capacity(std::uint64_t capacity) { ledger_.capacity = capacity; }
  std::uint64_t capacity() const { return ledger_.capacity; }
  const AllocatorLedger& ledger() const { return ledger_; }
  const Block& block(BlockId id) const { return arena_[id]; }
  std::uint64_t round_size(std::uint64_t size) const;
  static std::uint64_t allocation_size(std::uint64_t rounded);
  // Cached free bytes that release_cached_blocks() would give back.
  std::uint64_t releasable_bytes() const;
  // Every segment, address order (one per contiguous mapped range of an expandable segment, as snapshots
  // list them).
  std::vector<ModelSegment> segments() const;
  const AllocatorConfig& config() const { return config_; }

 private:
  bool get_free_block(std::int64_t stream, bool small, std::uint64_t size, BlockId& out);
  bool alloc_block(std::int64_t stream, bool small, std::uint64_t size, std::uint64_t alloc_size,
                   BlockId& out);
  bool release_available_cached_blocks(std::int64_t stream, bool small, std::uint64_t size);
  void release_cached_blocks();
  void release_blocks(bool small);
  void release_block(BlockId b);
  void garbage_collect();
  void free_block(BlockId b);
  bool should_split(const Block& b, std::uint64_t size) const;
  BlockId alloc_found_block(BlockId b, std::uint64_t size, std::uint64_t requested, bool split,
                            std::int64_t tag);
  void fill_oom(OomDetail& o, std::int64_t stream, bool small, std::uint64_t requested, std::uint64_t rounded,
                std::uint64_t alloc_size, std::uint64_t cached_before, std::uint64_t reserved_before) const;

  AllocatorConfig config_;
  AllocatorLedger ledger_;
  AddressSource& addresses_;
  std::uint64_t device_bytes_;
  BlockArena arena_;
  ExpandableSpace expandable_;
  std::vector<BlockId> pending_;  // freed, waiting for other streams (complete_free or a retry)
};

}  // namespace oomscope::allocator
