#include "core/allocator/block_arena.h"

namespace oomscope::allocator {

bool BySizeOrder::operator()(BlockId a, BlockId b) const {
  const Block& x = (*blocks)[a];
  const Block& y = (*blocks)[b];
  // Streams compare as the unsigned cudaStream_t pointers PyTorch compares.
  if (x.stream != y.stream)
    return static_cast<std::uint64_t>(x.stream) < static_cast<std::uint64_t>(y.stream);
  if (x.size != y.size) return x.size < y.size;
  return x.ptr < y.ptr;
}

bool ByAddressOrder::operator()(BlockId a, BlockId b) const {
  const Block& x = (*blocks)[a];
  const Block& y = (*blocks)[b];
  if (x.stream != y.stream)
    return static_cast<std::uint64_t>(x.stream) < static_cast<std::uint64_t>(y.stream);
  return x.ptr < y.ptr;
}

Pool::Pool(const std::vector<Block>* b, bool is_small)
    : blocks(BySizeOrder{b}), unmapped(ByAddressOrder{b}), small(is_small) {}

BlockArena::BlockArena()
    : blocks_(std::make_unique<std::vector<Block>>(1)),
      small_(blocks_.get(), true),
      large_(blocks_.get(), false) {
  blocks_->reserve(1024);
}

BlockId BlockArena::create(const Block& b) {
  BlockId id;
  if (!free_slots_.empty()) {
    id = free_slots_.back();
    free_slots_.pop_back();
    (*blocks_)[id] = b;
  } else {
    id = static_cast<BlockId>(blocks_->size());
    blocks_->push_back(b);
  }
  (*blocks_)[id].live = true;
  return id;
}

void BlockArena::destroy(BlockId id) {
  (*blocks_)[id].live = false;
  free_slots_.push_back(id);
}

BlockId BlockArena::key(std::int64_t stream, std::uint64_t size, std::uint64_t ptr) {
  Block& k = (*blocks_)[kKey];
  k.stream = stream;
  k.size = size;
  k.ptr = ptr;
  return kKey;
}

void BlockArena::insert_free(BlockId id) {
  Block& b = (*blocks_)[id];
  Pool& p = pool(b.small_pool);
  b.gc_count_base = p.get_free_blocks_call_count;
  p.blocks.insert(id);
}

void BlockArena::erase_from_pool(BlockId id) {
  const Block& b = (*blocks_)[id];
  Pool& p = pool(b.small_pool);
  if (b.mapped)
    p.blocks.erase(id);
  else
    p.unmapped.erase(id);
}

std::uint64_t BlockArena::try_merge(BlockId dst, BlockId src) {
  if (src == kNoBlock) return 0;
  Block& s = (*blocks_)[src];
  Block& d = (*blocks_)[dst];
  if (s.allocated || s.pending_free || s.mapped != d.mapped) return 0;
  erase_from_pool(src);
  if (d.prev == src) {
    d.ptr = s.ptr;
    d.prev = s.prev;
    if (d.prev != kNoBlock) (*blocks_)[d.prev].next = dst;
  } else {
    d.next = s.next;
    if (d.next != kNoBlock) (*blocks_)[d.next].prev = dst;
  }
  const std::uint64_t taken = s.size;
  d.size += taken;
  destroy(src);
  return taken;
}

}  // namespace oomscope::allocator
