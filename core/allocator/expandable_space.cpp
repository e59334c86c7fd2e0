#include "core/allocator/expandable_space.h"

#include <algorithm>

namespace oomscope::allocator {

ExpandableSpace::ExpandableSpace(BlockArena& arena, AllocatorLedger& ledger, AddressSource& addresses)
    : arena_(arena), ledger_(ledger), addresses_(addresses) {}

bool ExpandableSpace::allocatable(BlockId b) const {
  return b != kNoBlock && !arena_[b].allocated && !arena_[b].pending_free;
}

std::uint32_t ExpandableSpace::adopt(std::uint64_t base, std::uint64_t va_size, std::int64_t stream,
                                     bool small_pool) {
  const std::uint64_t page = small_pool ? kSmallBuffer : kLargeBuffer;
  segments_.emplace_back(base, page, (va_size + page - 1) / page, stream, small_pool);
  return static_cast<std::uint32_t>(segments_.size() - 1);
}

PageRange ExpandableSpace::map_pages(std::uint32_t segment, std::uint64_t ptr, std::uint64_t size) {
  return segments_[segment].map(ptr, size, kNoLimit);
}

// The lowest-addressed unmapped block of the stream (with the free block just before it) that, with the
// free and unmapped blocks after it, spans `size`; else a new segment's whole unmapped range.
BlockId ExpandableSpace::find(std::int64_t stream, bool small_pool, std::uint64_t size,
                              std::uint64_t device_bytes) {
  Pool& pool = arena_.pool(small_pool);
  const BlockId key = arena_.key(stream, 0, 0);
  for (auto it = pool.unmapped.lower_bound(key); it != pool.unmapped.end() && arena_[*it].stream == stream;
       ++it) {
    BlockId c = *it;
    if (allocatable(arena_[c].prev)) c = arena_[c].prev;
    std::uint64_t bytes = 0;
    for (BlockId b = c; bytes < size && allocatable(b); b = arena_[b].next) bytes += arena_[b].size;
    if (bytes >= size) return c;
  }
  const std::uint64_t page = small_pool ? kSmallBuffer : kLargeBuffer;
  const std::uint64_t va = device_bytes + device_bytes / 8;
  const std::uint64_t pages = std::max<std::uint64_t>(1, (va + page - 1) / page);
  const std::uint64_t base = addresses_.reservation_address(pages * page);
  segments_.emplace_back(base, page, pages, stream, small_pool);
  Block b;
  b.ptr = base;
  b.size = pages * page;
  b.stream = stream;
  b.small_pool = small_pool;
  b.mapped = false;
  b.expandable = static_cast<std::uint32_t>(segments_.size() - 1);
  const BlockId id = arena_.create(b);
  pool.unmapped.insert(id);
  return id;
}

bool ExpandableSpace::map_block(BlockId to_map, std::uint64_t size) {
  Block& b = arena_[to_map];
  ExpandableSegment& es = segments_[b.expandable];
  const PageRange range = es.map(b.ptr, size, ledger_.available());
  if (range.size == 0) return false;
  Pool& pool = arena_.pool(b.small_pool);
  pool.unmapped.erase(to_map);
  arena_[to_map].mapped = true;
  if (range.size < arena_[to_map].size) {  // the rest stays unmapped, after it
    Block rest;
    rest.ptr = arena_[to_map].ptr + range.size;
    rest.size = arena_[to_map].size - range.size;
    rest.stream = arena_[to_map].stream;
    rest.small_pool = arena_[to_map].small_pool;
    rest.mapped = false;
    rest.expandable = arena_[to_map].expandable;
    rest.prev = to_map;
    rest.next = arena_[to_map].next;
    const BlockId r = arena_.create(rest);
    if (arena_[r].next != kNoBlock) arena_[arena_[r].next].prev = r;
    arena_[to_map].next = r;
    arena_[to_map].size = range.size;
    pool.unmapped.insert(r);
  }
  arena_.try_merge(to_map, arena_[to_map].prev);
  arena_.try_merge(to_map, arena_[to_map].next);
  arena_.insert_free(to_map);
  ledger_.reserve(range.size);
  ledger_.events.push_back({snapshot::Action::SegmentMap, range.ptr, range.size, arena_[to_map].stream});
  return true;
}

BlockId ExpandableSpace::allocate(std::int64_t stream, bool small_pool, std::uint64_t size,
                                  std::uint64_t device_bytes) {
  BlockId candidate = find(stream, small_pool, size, device_bytes);
  if (!arena_[candidate].mapped && !map_block(candidate, std::min(arena_[candidate].size, size)))
    return kNoBlock;
  while (arena_[candidate].size < size) {
    const BlockId next = arena_[candidate].next;
    const std::uint64_t remaining = size - arena_[candidate].size;
    if (next == kNoBlock || !map_block(next, std::min(remaining, arena_[next].size))) return kNoBlock;
    candidate = next;  // map_block merged the candidate into it
  }
  arena_.pool(small_pool).blocks.erase(candidate);
  return candidate;
}

void ExpandableSpace::unmap(BlockId id) {
  Block& b = arena_[id];
  ExpandableSegment& es = segments_[b.expandable];
  const PageRange range = es.unmap(b.ptr, b.size);
  if (range.size == 0) return;
  Pool& pool = arena_.pool(b.small_pool);
  pool.blocks.erase(id);
  const std::uint64_t before = range.ptr - arena_[id].ptr;
  if (before > 0) {  // prev -> free part before -> block
    Block f = arena_[id];
    f.size = before;
    f.next = id;
    f.tag = -1;
    const BlockId fid = arena_.create(f);
    if (arena_[fid].prev != kNoBlock) arena_[arena_[fid].prev].next = fid;
    arena_[id].prev = fid;
    arena_.insert_free(fid);
  }
  const std::uint64_t after = arena_[id].size - before - range.size;
  if (after > 0) {  // block -> free part after -> next
    Block f = arena_[id];
    f.ptr = range.ptr + range.size;
    f.size = after;
    f.prev = id;
    f.tag = -1;
    const BlockId fid = arena_.create(f);
    if (arena_[fid].next != kNoBlock) arena_[arena_[fid].next].prev = fid;
    arena_[id].next = fid;
    arena_.insert_free(fid);
  }
  arena_[id].ptr = range.ptr;
  arena_[id].size = range.size;
  arena_[id].mapped = false;
  arena_.try_merge(id, arena_[id].prev);
  arena_.try_merge(id, arena_[id].next);
  pool.unmapped.insert(id);
  ledger_.unreserve(range.size);
  ledger_.events.push_back({snapshot::Action::SegmentUnmap, range.ptr, range.size, arena_[id].stream});
  if (!arena_[id].is_split()) {  // nothing of the segment is mapped: its address range is freed
    segments_[arena_[id].expandable].release();
    addresses_.released(segments_[arena_[id].expandable].base());
    pool.unmapped.erase(id);
    arena_.destroy(id);
  }
}

}  // namespace oomscope::allocator
