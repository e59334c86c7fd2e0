#include "core/allocator/caching_allocator.h"

#include <algorithm>
#include <bit>

#include "core/allocator/segment_layout.h"

namespace oomscope::allocator {

namespace {

// Rounds up to the next of `divisions` equal steps between the powers of two around `size`.
std::uint64_t roundup_power2_next_division(std::uint64_t size, std::uint64_t divisions) {
  if (std::has_single_bit(size)) return size;
  const std::uint64_t floor = std::bit_floor(size);
  const std::uint64_t step = floor >> (std::bit_width(divisions) - 1);
  if (step == 0) return floor << 1;
  const std::uint64_t down = size & ~(step - 1);
  return down == size ? size : down + step;
}

}  // namespace

CachingAllocator::CachingAllocator(const AllocatorConfig& config, std::uint64_t capacity,
                                   AddressSource& addresses, std::uint64_t device_bytes)
    : config_(config),
      addresses_(addresses),
      device_bytes_(device_bytes),
      expandable_(arena_, ledger_, addresses) {
  ledger_.capacity = capacity;
}

std::uint64_t CachingAllocator::round_size(std::uint64_t size) const {
  if (size < kMinBlockSize) return kMinBlockSize;
  const std::uint64_t divisions = config_.divisions_for(size);
  if (divisions > 1 && size > kMinBlockSize * divisions) return roundup_power2_next_division(size, divisions);
  return (size + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

std::uint64_t CachingAllocator::allocation_size(std::uint64_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

bool CachingAllocator::should_split(const Block& b, std::uint64_t size) const {
  const std::uint64_t remaining = b.size - size;
  if (b.small_pool || config_.expandable_segments) return remaining >= kMinBlockSize;
  return size < config_.max_split_size && remaining > kSmallSize;
}

bool CachingAllocator::get_free_block(std::int64_t stream, bool small, std::uint64_t size, BlockId& out) {
  Pool& pool = arena_.pool(small);
  const bool gc = config_.garbage_collection_threshold > 0.0 && ledger_.capacity != kNoLimit;
  if (gc) ++pool.get_free_blocks_call_count;
  auto it = pool.blocks.lower_bound(arena_.key(stream, size));
  if (it == pool.blocks.end() || arena_[*it].stream != stream) return false;
  if (arena_[*it].expandable != kNoSegment) {
    if (config_.expandable_segments) {
      // A block before an unmapped range counts as big as it could grow.
      auto grown = [&](BlockId b) {
        const BlockId n = arena_[b].next;
        return arena_[b].size + (n != kNoBlock && !arena_[n].mapped ? arena_[n].size : 0);
      };
      auto next = std::next(it);
      while (arena_[*it].expandable != kNoSegment && next != pool.blocks.end() &&
             arena_[*next].stream == stream && grown(*next) < grown(*it))
        it = next++;
    } else {
      do ++it;
      while (it != pool.blocks.end() && arena_[*it].expandable != kNoSegment && arena_[*it].stream == stream);
      if (it == pool.blocks.end() || arena_[*it].stream != stream) return false;
    }
  }
  const std::uint64_t found = arena_[*it].size;
  if (size < config_.max_split_size && found >= config_.max_split_size)
    return false;  // no oversize for small
  if (size >= config_.max_split_size && found >= size + config_.max_non_split_rounding) return false;
  out = *it;
  pool.blocks.erase(it);
  return true;
}

bool CachingAllocator::alloc_block(std::int64_t stream, bool small, std::uint64_t size,
                                   std::uint64_t alloc_size, BlockId& out) {
  if (config_.expandable_segments) {
    out = expandable_.allocate(stream, small, size, device_bytes_);
    return out != kNoBlock;
  }
  if (alloc_size > ledger_.available()) return false;  // cudaMalloc fails
  Block b;
  b.ptr = addresses_.segment_address(alloc_size);
  b.size = alloc_size;
  b.stream = stream;
  b.small_pool = small;
  out = arena_.create(b);
  ledger_.reserve(alloc_size);
  ledger_.events.push_back({snapshot::Action::SegmentAlloc, b.ptr, alloc_size, stream});
  return true;
}

BlockId CachingAllocator::alloc_found_block(BlockId id, std::uint64_t size, std::uint64_t requested,
                                            bool split, std::int64_t tag) {
  if (split) {  // the front `size` bytes become the allocation, the rest stays cached
    Block front = arena_[id];
    front.size = size;
    front.next = id;
    const BlockId f = arena_.create(front);
    if (arena_[f].prev != kNoBlock) arena_[arena_[f].prev].next = f;
    Block& rest = arena_[id];
    rest.prev = f;
    rest.ptr += size;
    rest.size -= size;
    arena_.insert_free(id);
    id = f;
  }
  Block& b = arena_[id];
  b.allocated = true;
  b.requested = requested;
  b.tag = tag;
  ledger_.allocate(b.size, requested);
  return id;
}

BlockId CachingAllocator::malloc(std::uint64_t requested, std::int64_t stream, std::int64_t tag,
                                 OomDetail* oom) {
  const std::uint64_t size = round_size(requested);
  const bool small = size <= kSmallSize;
  const std::uint64_t alloc_size = allocation_size(size);
  BlockId found = kNoBlock;
  if (!get_free_block(stream, small, size, found)) {
    if (config_.garbage_collection_threshold > 0.0 && ledger_.capacity != kNoLimit) garbage_collect();
    if (!alloc_block(stream, small, size, alloc_size, found)) {
      const std::uint64_t cached_before = releasable_bytes();
      const std::uint64_t reserved_before = ledger_.reserved;
      const bool ok = (release_available_cached_blocks(stream, small, size) &&
                       alloc_block(stream, small, size, alloc_size, found)) ||
                      (release_cached_blocks(), alloc_block(stream, small, size, alloc_size, found));
      if (!ok) {
        if (oom) fill_oom(*oom, stream, small, requested, size, alloc_size, cached_before, reserved_before);
        return kNoBlock;
      }
    }
  }
  return alloc_found_block(found, size, requested, should_split(arena_[found], size), tag);
}

void CachingAllocator::fill_oom(OomDetail& o, std::int64_t stream, bool small, std::uint64_t requested,
                                std::uint64_t rounded, std::uint64_t alloc_size, std::uint64_t cached_before,
                                std::uint64_t reserved_before) const {
  o = OomDetail{};
  o.requested = requested;
  o.rounded = rounded;
  o.alloc_size = alloc_size;
  o.stream = stream;
  o.small_pool = small;
  for (BlockId b : arena_.pool(small).blocks)
    if (arena_[b].stream == stream) o.largest_free_in_pool = std::max(o.largest_free_in_pool, arena_[b].size);
  o.cached_free = cached_before;
  o.released_by_retry = reserved_before > ledger_.reserved ? reserved_before - ledger_.reserved : 0;
  o.reserved_after = ledger_.reserved;
  o.allocated_after = ledger_.allocated;
  o.capacity = ledger_.capacity;
}

void CachingAllocator::free(BlockId id, bool deferred) {
  Block& b = arena_[id];
  b.allocated = false;
  ledger_.deallocate(b.size, b.requested);
  if (deferred) {
    b.pending_free = true;
    pending_.push_back(id);
    return;
  }
  free_block(id);
}

void CachingAllocator::complete_free(BlockId id) {
  if (!arena_[id].live || !arena_[id].pending_free) return;
  arena_[id].pending_free = false;
  pending_.erase(std::remove(pending_.begin(), pending_.end(), id), pending_.end());
  free_block(id);
}

void CachingAllocator::free_block(BlockId id) {
  arena_.try_merge(id, arena_[id].prev);
  arena_.try_merge(id, arena_[id].next);
  arena_[id].tag = -1;
  arena_.insert_free(id);
}

// Frees oversize cached blocks (max_split_size set): the smallest one that covers the request, else the
// largest ones until they add up to it.
bool CachingAllocator::release_available_cached_blocks(std::int64_t stream, bool small, std::uint64_t size) {
  if (config_.max_split_size == kNoLimit) return false;
  Pool& pool = arena_.pool(small);
  const std::uint64_t target = std::max(size, config_.max_split_size);
  auto it = pool.blocks.lower_bound(arena_.key(stream, target));
  if (it == pool.blocks.end() || arena_[*it].stream != stream) {
    if (it == pool.blocks.begin()) return false;
    std::uint64_t released = 0;
    --it;
    while (released < target && arena_[*it].size >= config_.max_split_size && arena_[*it].stream == stream) {
      const BlockId cur = *it;
      released += arena_[cur].size;
      const bool first = it == pool.blocks.begin();
      if (!first) --it;
      release_block(cur);
      if (first) break;
    }
    return released >= target;
  }
  release_block(*it);
  return true;
}

void CachingAllocator::release_block(BlockId id) {
  if (arena_[id].expandable != kNoSegment) {
    expandable_.unmap(id);
    return;
  }
  const Block& b = arena_[id];
  ledger_.events.push_back({snapshot::Action::SegmentFree, b.ptr, b.size, b.stream});
  ledger_.unreserve(b.size);
  addresses_.released(b.ptr);
  arena_.erase_from_pool(id);
  arena_.destroy(id);
}

void CachingAllocator::release_blocks(bool small) {
  Pool& pool = arena_.pool(small);
  std::vector<BlockId> unsplit, expandable;
  for (BlockId b : pool.blocks) {
    if (arena_[b].expandable != kNoSegment)
      expandable.push_back(b);
    else if (!arena_[b].is_split())
      unsplit.push_back(b);
  }
  for (BlockId b : unsplit) release_block(b);
  for (BlockId b : expandable) expandable_.unmap(b);
}

void CachingAllocator::release_cached_blocks() {
  // Synchronising on every stream first completes the frees that waited for other streams.
  const std::vector<BlockId> waiting = pending_;
  for (BlockId b : waiting) complete_free(b);
  release_blocks(false);
  release_blocks(true);
}

void CachingAllocator::empty_cache() { release_cached_blocks(); }

std::uint64_t CachingAllocator::releasable_bytes() const {
  std::uint64_t n = 0;
  for (bool small : {false, true})
    for (BlockId b : arena_.pool(small).blocks)
      if (!arena_[b].is_split() || arena_[b].expandable != kNoSegment) n += arena_[b].size;
  return n;
}

// Frees unsplit cached large blocks older than average (in get_free_block calls since they were cached)
// until reserved memory is back under threshold x capacity.
void CachingAllocator::garbage_collect() {
  const auto threshold = static_cast<std::uint64_t>(config_.garbage_collection_threshold *
                                                    static_cast<double>(ledger_.capacity));
  if (ledger_.reserved <= threshold) return;
  const std::uint64_t target = ledger_.reserved - threshold;
  Pool& pool = arena_.pool(false);
  auto age = [&](BlockId b) { return pool.get_free_blocks_call_count - arena_[b].gc_count_base; };
  std::int64_t total_age = 0;
  int count = 0;
  for (BlockId b : pool.blocks)
    if (!arena_[b].is_split()) {
      total_age += age(b);
      ++count;
    }
  std::uint64_t reclaimed = 0;
  bool freed = true;
  while (reclaimed < target && freed && count > 0) {
    const double average = static_cast<double>(total_age) / count;
    freed = false;
    std::vector<BlockId> old;
    for (BlockId b : pool.blocks)
      if (!arena_[b].is_split() && static_cast<double>(age(b)) >= average) old.push_back(b);
    for (BlockId b : old) {
      freed = true;
      reclaimed += arena_[b].size;
      total_age -= age(b);
      --count;
      release_block(b);
    }
  }
}

std::vector<BlockId> CachingAllocator::add_segments(const std::vector<ModelSegment>& segments) {
  return place_segments(arena_, expandable_, ledger_, segments, device_bytes_, pending_);
}

std::vector<ModelSegment> CachingAllocator::segments() const { return list_segments(arena_, expandable_); }

}  // namespace oomscope::allocator
