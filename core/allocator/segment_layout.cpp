#include "core/allocator/segment_layout.h"

#include <algorithm>
#include <map>

namespace oomscope::allocator {

namespace {

struct Chain {
  BlockArena& arena;
  BlockId last = kNoBlock;

  BlockId append(Block b) {
    b.prev = last;
    const BlockId id = arena.create(b);
    if (last != kNoBlock) arena[last].next = id;
    last = id;
    return id;
  }
};

// Appends the blocks of one mapped range: free gaps and the live blocks.
void append_range(Chain& chain, const ModelSegment& s, std::uint32_t expandable, AllocatorLedger& ledger,
                  std::vector<BlockId>& live, std::vector<BlockId>& pending, std::vector<BlockId>& free) {
  Block proto;
  proto.stream = s.stream;
  proto.small_pool = !s.large;
  proto.expandable = expandable;
  std::uint64_t cursor = s.addr;
  const std::uint64_t end = s.addr + s.size;
  // Live blocks in address order, each cut at the next one and at the segment's end: a block re-created
  // from a free in the trace may have been given the size of the larger free block it merged into.
  std::vector<ModelBlock> blocks;
  for (const ModelBlock& m : s.blocks)
    if (m.state != ModelBlockState::Free && m.addr >= s.addr && m.addr < end) blocks.push_back(m);
  std::sort(blocks.begin(), blocks.end(),
            [](const ModelBlock& a, const ModelBlock& b) { return a.addr < b.addr; });
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::uint64_t limit = i + 1 < blocks.size() ? blocks[i + 1].addr : end;
    blocks[i].size = std::min(blocks[i].size, limit - blocks[i].addr);
  }
  for (const ModelBlock& m : blocks) {
    if (m.size == 0) continue;
    if (m.addr > cursor) {
      Block gap = proto;
      gap.ptr = cursor;
      gap.size = m.addr - cursor;
      free.push_back(chain.append(gap));
    }
    Block b = proto;
    b.ptr = m.addr;
    b.size = m.size;
    b.requested = m.requested;
    b.allocated = m.state == ModelBlockState::Allocated;
    b.pending_free = m.state == ModelBlockState::PendingFree;
    const BlockId id = chain.append(b);
    live.push_back(id);
    if (b.allocated) ledger.allocate(b.size, b.requested);
    if (b.pending_free) pending.push_back(id);
    cursor = m.addr + m.size;
  }
  if (cursor < end) {
    Block gap = proto;
    gap.ptr = cursor;
    gap.size = end - cursor;
    free.push_back(chain.append(gap));
  }
  ledger.reserve(s.size);
}

}  // namespace

std::vector<BlockId> place_segments(BlockArena& arena, ExpandableSpace& expandable, AllocatorLedger& ledger,
                                    const std::vector<ModelSegment>& segments, std::uint64_t device_bytes,
                                    std::vector<BlockId>& pending) {
  std::vector<BlockId> live, free;
  std::map<std::pair<std::int64_t, bool>, std::vector<const ModelSegment*>> groups;  // expandable ones
  for (const ModelSegment& s : segments) {
    if (s.expandable) {
      groups[{s.stream, s.large}].push_back(&s);
      continue;
    }
    Chain chain{arena};
    append_range(chain, s, kNoSegment, ledger, live, pending, free);
  }
  for (auto& group : groups) {
    const std::pair<std::int64_t, bool> key = group.first;
    auto& list = group.second;
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->addr < b->addr; });
    const bool small = !key.second;
    const std::uint64_t page = small ? kSmallBuffer : kLargeBuffer;
    const std::uint64_t base = list.front()->addr;
    const std::uint64_t span = list.back()->addr + list.back()->size - base;
    const std::uint64_t va = (std::max(span, device_bytes + device_bytes / 8) + page - 1) / page * page;
    const std::uint32_t es = expandable.adopt(base, va, key.first, small);
    Chain chain{arena};
    std::uint64_t cursor = base;
    auto unmapped = [&](std::uint64_t from, std::uint64_t to) {
      Block u;
      u.ptr = from;
      u.size = to - from;
      u.stream = key.first;
      u.small_pool = small;
      u.expandable = es;
      u.mapped = false;
      arena.pool(small).unmapped.insert(chain.append(u));
    };
    for (const ModelSegment* s : list) {
      if (s->addr > cursor) unmapped(cursor, s->addr);
      expandable.map_pages(es, s->addr, s->size);
      append_range(chain, *s, es, ledger, live, pending, free);
      cursor = s->addr + s->size;
    }
    if (cursor < base + va) unmapped(cursor, base + va);
  }
  for (BlockId b : free) arena.insert_free(b);
  return live;
}

std::vector<ModelSegment> list_segments(const BlockArena& arena, const ExpandableSpace& expandable) {
  std::vector<ModelSegment> out;
  for (BlockId id = 1; id < arena.slot_count(); ++id) {
    const Block& head = arena[id];
    if (!head.live || head.prev != kNoBlock) continue;
    ModelSegment* cur = nullptr;
    for (BlockId b = id; b != kNoBlock; b = arena[b].next) {
      const Block& x = arena[b];
      if (!x.mapped) {
        cur = nullptr;
        continue;
      }
      if (!cur) {
        out.emplace_back();
        cur = &out.back();
        cur->addr = x.ptr;
        cur->stream = x.stream;
        cur->large = !x.small_pool;
        cur->expandable = x.expandable != kNoSegment;
      }
      cur->size += x.size;
      cur->blocks.push_back({x.ptr, x.size, x.requested,
                             x.allocated      ? ModelBlockState::Allocated
                             : x.pending_free ? ModelBlockState::PendingFree
                                              : ModelBlockState::Free});
    }
  }
  (void)expandable;
  std::sort(out.begin(), out.end(),
            [](const ModelSegment& a, const ModelSegment& b) { return a.addr < b.addr; });
  return out;
}

}  // namespace oomscope::allocator
