#pragma once
// The caching allocator model's blocks and its free-block pools. A block is a piece of one segment (a
// cudaMalloc'd range, or the virtual range of an expandable segment); blocks of a segment are chained by
// prev/next in address order. Free blocks wait in their pool's `blocks`, ordered by (stream, size,
// address): the order PyTorch's best fit searches. Unmapped ranges of expandable segments wait in
// `unmapped`, ordered by (stream, address).

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

namespace oomscope::allocator {

using BlockId = std::uint32_t;
inline constexpr BlockId kNoBlock = ~BlockId{0};
inline constexpr std::uint32_t kNoSegment = ~std::uint32_t{0};

struct Block {
  std::uint64_t ptr = 0;
  std::uint64_t size = 0;
  std::uint64_t requested = 0;  // the request it last served
  std::int64_t stream = 0;
  BlockId prev = kNoBlock, next = kNoBlock;
  std::uint32_t expandable = kNoSegment;  // index of its ExpandableSegment, or none
  std::int64_t gc_count_base = 0;         // the pool's get_free_block count when it was cached
  std::int64_t tag = -1;                  // the caller's (the replay's trace index of the alloc)
  bool small_pool = false;
  bool allocated = false;
  bool pending_free = false;  // freed by the user, waiting on other streams (an outstanding event)
  bool mapped = true;         // false: an unmapped range of an expandable segment
  bool live = false;          // the arena slot is in use
  bool is_split() const { return prev != kNoBlock || next != kNoBlock; }
};

class BlockArena;

struct BySizeOrder {
  const std::vector<Block>* blocks;
  bool operator()(BlockId a, BlockId b) const;
};
struct ByAddressOrder {
  const std::vector<Block>* blocks;
  bool operator()(BlockId a, BlockId b) const;
};

struct Pool {
  explicit Pool(const std::vector<Block>* blocks, bool small);
  std::set<BlockId, BySizeOrder> blocks;       // cached free blocks
  std::set<BlockId, ByAddressOrder> unmapped;  // expandable segments' unmapped ranges
  bool small;
  std::int64_t get_free_blocks_call_count = 0;
};

// Owns every block; ids stay valid until destroy(). Slot 0 is the search key of lower_bound lookups.
class BlockArena {
 public:
  BlockArena();
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  Block& operator[](BlockId id) { return (*blocks_)[id]; }
  const Block& operator[](BlockId id) const { return (*blocks_)[id]; }
  BlockId create(const Block& b);
  void destroy(BlockId id);
  // The search key (id kKey) set to (stream, size, ptr).
  BlockId key(std::int64_t stream, std::uint64_t size, std::uint64_t ptr = 0);
  static constexpr BlockId kKey = 0;

  Pool& pool(bool small) { return small ? small_ : large_; }
  const Pool& pool(bool small) const { return small ? small_ : large_; }
  // Caches a free block in its pool (resetting its garbage-collection age).
  void insert_free(BlockId id);
  // Removes a cached free or unmapped block from its pool's sets (no-op when it is in none).
  void erase_from_pool(BlockId id);
  // Merges the free neighbour `src` into `dst` (PyTorch's try_merge_blocks): only when src is free, has no
  // outstanding event and has dst's mapped state. Returns the bytes taken over (0: no merge).
  std::uint64_t try_merge(BlockId dst, BlockId src);
  std::size_t slot_count() const { return blocks_->size(); }  // not slots(): Qt code includes this

 private:
  std::unique_ptr<std::vector<Block>> blocks_;  // on the heap: the pools' orderings point at it
  std::vector<BlockId> free_slots_;
  Pool small_, large_;
};

}  // namespace oomscope::allocator
