// The model's rules on hand-made request sequences, each expectation worked out from the rules of
// PyTorch's CUDACachingAllocator.cpp (docs/allocator-model.md), not from the model.

#include "core/allocator/caching_allocator.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace oomscope::allocator {
namespace {

constexpr std::uint64_t MiB = kMiB;
using snapshot::Action;

struct Model {
  explicit Model(AllocatorConfig c = {}, std::uint64_t capacity = kNoLimit)
      : addresses(1ull << 40), alloc(c, capacity, addresses, 80 * 1024 * MiB) {}
  BumpAddresses addresses;
  CachingAllocator alloc;
  std::vector<std::pair<Action, std::uint64_t>> events() const {
    std::vector<std::pair<Action, std::uint64_t>> out;
    for (const SegmentEvent& e : alloc.ledger().events) out.emplace_back(e.action, e.size);
    return out;
  }
};

TEST(Rounding, BlocksAreMultiplesOf512) {
  Model m;
  EXPECT_EQ(m.alloc.round_size(1), 512u);
  EXPECT_EQ(m.alloc.round_size(512), 512u);
  EXPECT_EQ(m.alloc.round_size(513), 1024u);
  EXPECT_EQ(m.alloc.round_size(1000000), 1000448u);
}

TEST(Rounding, PowerOfTwoDivisions) {
  AllocatorConfig c;
  apply_setting(c, "roundup_power2_divisions:4");
  Model m(c);
  // 1200 MiB lies between 1024 and 2048 MiB; four steps of 256 MiB: 1280 MiB.
  EXPECT_EQ(m.alloc.round_size(1200 * MiB), 1280 * MiB);
  EXPECT_EQ(m.alloc.round_size(1024 * MiB), 1024 * MiB);  // a power of two stays
  EXPECT_EQ(m.alloc.round_size(1500), 1536u);             // not above 512 x 4: plain rounding
  AllocatorConfig per;
  apply_setting(per, "roundup_power2_divisions:[256:1,512:2,>:8]");
  EXPECT_EQ(per.divisions_for(300 * MiB), 1u);
  EXPECT_EQ(per.divisions_for(600 * MiB), 2u);
  EXPECT_EQ(per.divisions_for(1100 * MiB), 8u);
  EXPECT_EQ(per.divisions_for(2 * MiB), 1u);  // below the first key: the first key's value
}

TEST(SegmentSizes, SmallLargeAndRounded) {
  EXPECT_EQ(CachingAllocator::allocation_size(512), 2 * MiB);
  EXPECT_EQ(CachingAllocator::allocation_size(1 * MiB), 2 * MiB);
  EXPECT_EQ(CachingAllocator::allocation_size(1 * MiB + 512), 20 * MiB);
  EXPECT_EQ(CachingAllocator::allocation_size(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(CachingAllocator::allocation_size(10 * MiB), 10 * MiB);
  EXPECT_EQ(CachingAllocator::allocation_size(11 * MiB - 512), 12 * MiB);
}

TEST(Pools, SmallRequestsShareA2MiBSegment) {
  Model m;
  const BlockId a = m.alloc.malloc(1000, 0);
  const BlockId b = m.alloc.malloc(1000, 0);
  EXPECT_EQ(m.events(), (std::vector<std::pair<Action, std::uint64_t>>{{Action::SegmentAlloc, 2 * MiB}}));
  EXPECT_EQ(m.alloc.block(b).ptr, m.alloc.block(a).ptr + 1024);
  EXPECT_EQ(m.alloc.ledger().allocated, 2048u);
}

TEST(Split, LargeBlocksSplitOnlyAboveOneMiBOfRest) {
  Model m;
  const BlockId a = m.alloc.malloc(5 * MiB, 0);  // a 20 MiB segment, 15 MiB left cached
  const BlockId b = m.alloc.malloc(5 * MiB, 0);
  EXPECT_EQ(m.alloc.block(b).ptr, m.alloc.block(a).ptr + 5 * MiB);
  Model n;
  const BlockId c = n.alloc.malloc(19 * MiB + 512 * 1024, 0);  // 20 MiB segment, 0.5 MiB rest: not split
  EXPECT_EQ(n.alloc.block(c).size, 20 * MiB);
  EXPECT_EQ(n.alloc.ledger().allocated, 20 * MiB);
}

TEST(BestFit, SmallestFreeBlockOfTheStream) {
  Model m;
  const BlockId x = m.alloc.malloc(30 * MiB, 0);
  const BlockId y = m.alloc.malloc(40 * MiB, 0);
  const BlockId other = m.alloc.malloc(26 * MiB, 7);  // another stream's 26 MiB block
  const std::uint64_t x_ptr = m.alloc.block(x).ptr;   // (a freed block's id may be reused by a split)
  m.alloc.free(y, false);
  m.alloc.free(x, false);
  m.alloc.free(other, false);
  const BlockId z = m.alloc.malloc(25 * MiB, 0);
  EXPECT_EQ(m.alloc.block(z).ptr, x_ptr);  // 30 MiB, not 40, not the other stream's 26
  EXPECT_EQ(m.events().size(), 3u);        // served from the cache
}

TEST(Merge, FreedNeighboursMergeAndEmptyCacheFreesWholeSegments) {
  Model m;
  const BlockId a = m.alloc.malloc(5 * MiB, 0);
  const BlockId b = m.alloc.malloc(5 * MiB, 0);
  m.alloc.free(a, false);
  m.alloc.empty_cache();  // the segment is still split: nothing to free
  EXPECT_EQ(m.events().size(), 1u);
  m.alloc.free(b, false);
  m.alloc.empty_cache();
  EXPECT_EQ(m.events(), (std::vector<std::pair<Action, std::uint64_t>>{{Action::SegmentAlloc, 20 * MiB},
                                                                       {Action::SegmentFree, 20 * MiB}}));
  EXPECT_EQ(m.alloc.ledger().reserved, 0u);
  EXPECT_EQ(m.alloc.ledger().peak_reserved, 20 * MiB);
}

TEST(MaxSplitSize, OversizeBlocksServeOnlyCloseRequests) {
  AllocatorConfig c;
  apply_setting(c, "max_split_size_mb:64");
  Model m(c);
  m.alloc.free(m.alloc.malloc(100 * MiB, 0), false);  // a cached 100 MiB block
  const BlockId small = m.alloc.malloc(30 * MiB, 0);  // below the limit: never an oversize block
  EXPECT_EQ(m.events().back(), std::make_pair(Action::SegmentAlloc, 30 * MiB));
  const BlockId close = m.alloc.malloc(90 * MiB, 0);  // 100 < 90 + 20: served, not split
  EXPECT_EQ(m.alloc.block(close).size, 100 * MiB);
  EXPECT_EQ(m.events().size(), 2u);
  m.alloc.free(close, false);
  m.alloc.malloc(70 * MiB, 0);  // 100 >= 70 + 20: a new segment
  EXPECT_EQ(m.events().back(), std::make_pair(Action::SegmentAlloc, 70 * MiB));
  (void)small;
}

TEST(Retry, FreesCachedSegmentsBeforeFailing) {
  Model m({}, 40 * MiB);
  m.alloc.free(m.alloc.malloc(20 * MiB, 0), false);  // 20 MiB cached
  const BlockId b = m.alloc.malloc(30 * MiB, 0);     // 20 + 30 > 40: release the cache, then fits
  ASSERT_NE(b, kNoBlock);
  EXPECT_EQ(m.events(), (std::vector<std::pair<Action, std::uint64_t>>{{Action::SegmentAlloc, 20 * MiB},
                                                                       {Action::SegmentFree, 20 * MiB},
                                                                       {Action::SegmentAlloc, 30 * MiB}}));
  OomDetail oom;
  EXPECT_EQ(m.alloc.malloc(12 * MiB, 0, -1, &oom), kNoBlock);  // 30 live + 12 > 40
  EXPECT_EQ(oom.alloc_size, 12 * MiB);
  EXPECT_EQ(oom.released_by_retry, 0u);
  EXPECT_EQ(oom.reserved_after, 30 * MiB);
}

TEST(Expandable, OneSegmentGrowsByPages) {
  AllocatorConfig c;
  apply_setting(c, "expandable_segments:True");
  Model m(c);
  const BlockId a = m.alloc.malloc(5 * MiB, 0);   // maps one 20 MiB page
  const BlockId b = m.alloc.malloc(30 * MiB, 0);  // 15 MiB free after a, one more page: 35 MiB
  EXPECT_EQ(m.events(), (std::vector<std::pair<Action, std::uint64_t>>{{Action::SegmentMap, 20 * MiB},
                                                                       {Action::SegmentMap, 20 * MiB}}));
  EXPECT_EQ(m.alloc.block(b).ptr, m.alloc.block(a).ptr + 5 * MiB);
  const auto segs = m.alloc.segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].size, 40 * MiB);
  m.alloc.free(b, false);
  m.alloc.empty_cache();  // the second page is wholly free: unmapped
  EXPECT_EQ(m.events().back(), std::make_pair(Action::SegmentUnmap, 20 * MiB));
  EXPECT_EQ(m.alloc.ledger().reserved, 20 * MiB);
}

TEST(PendingFree, WaitsForOtherStreams) {
  Model m;
  const BlockId a = m.alloc.malloc(8 * MiB, 0);
  m.alloc.free(a, true);  // used on another stream: not reusable yet
  const BlockId b = m.alloc.malloc(8 * MiB, 0);
  EXPECT_NE(m.alloc.block(b).ptr, m.alloc.block(a).ptr);
  m.alloc.complete_free(a);
  m.alloc.free(b, false);
  const auto segs = m.alloc.segments();
  ASSERT_EQ(segs.size(), 1u);
  ASSERT_EQ(segs[0].blocks.size(), 1u);  // everything merged back
  EXPECT_EQ(segs[0].blocks[0].size, 20 * MiB);
}

TEST(GarbageCollection, FreesOldCachedSegmentsAboveTheThreshold) {
  AllocatorConfig c;
  apply_setting(c, "garbage_collection_threshold:0.5");
  Model m(c, 100 * MiB);
  const BlockId old = m.alloc.malloc(24 * MiB, 0);
  m.alloc.malloc(30 * MiB, 0);
  m.alloc.free(old, false);  // 54 MiB reserved, 24 MiB of it cached
  m.alloc.malloc(32 * MiB, 0);
  EXPECT_EQ(m.events(), (std::vector<std::pair<Action, std::uint64_t>>{{Action::SegmentAlloc, 24 * MiB},
                                                                       {Action::SegmentAlloc, 30 * MiB},
                                                                       {Action::SegmentFree, 24 * MiB},
                                                                       {Action::SegmentAlloc, 32 * MiB}}));
  Model off({}, 100 * MiB);  // the same without the threshold keeps its cache
  const BlockId o2 = off.alloc.malloc(24 * MiB, 0);
  off.alloc.malloc(30 * MiB, 0);
  off.alloc.free(o2, false);
  off.alloc.malloc(32 * MiB, 0);
  EXPECT_EQ(off.events().size(), 3u);
}

TEST(Settings, RefusedValuesNameTheSetting) {
  AllocatorConfig c;
  EXPECT_THROW(apply_setting(c, "max_split_size_mb:20"), Error);
  EXPECT_THROW(apply_setting(c, "expandable_segments:maybe"), Error);
  EXPECT_THROW(apply_setting(c, "garbage_collection_threshold:1.5"), Error);
  EXPECT_THROW(apply_setting(c, "roundup_power2_divisions:3"), Error);
  EXPECT_THROW(apply_setting(c, "pinned_num_register_threads:4"), Error);
  try {
    apply_setting(c, "max_split_size_mb:abc");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_split_size_mb:abc"), std::string::npos);
  }
  EXPECT_EQ(describe_change(c, AllocatorConfig{}), "recorded");
  apply_setting(c, "expandable_segments:True");
  EXPECT_EQ(describe_change(c, AllocatorConfig{}), "expandable_segments:True");
}

}  // namespace
}  // namespace oomscope::allocator
