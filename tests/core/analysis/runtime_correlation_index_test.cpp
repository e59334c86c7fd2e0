// CorrelationIndex::of searches from a hint (where the previous lookup landed): for every hint, including
// ones past the end, and every id around those in the index, it must give what a plain scan gives.

#include <gtest/gtest.h>

#include <vector>

#include "core/analysis/runtime/detail/runtime_launches.h"

namespace oomscope::analysis {
namespace {

TEST(CorrelationIndex, AnyHintGivesTheEntriesOfTheId) {
  // Ids with gaps and repeats (several device events of one launch), in time order as a capture has them.
  std::vector<capture::DeviceProgramEvent> device;
  const std::vector<std::uint64_t> ids{7, 3, 3, 12, 0, 5, 12, 12, 40, 41, 9, 3, 100, 64, 65, 66, 1, 0, 33};
  for (std::size_t i = 0; i < ids.size(); ++i)
    device.push_back({std::int64_t(i) * 10, 100 + i, 0, std::uint32_t(i % 3), ids[i]});
  const CorrelationIndex index(device);
  for (std::uint64_t want = 0; want <= 102; ++want) {
    std::vector<std::uint32_t> expected;  // device event positions of the id, in time order
    if (want != 0)
      for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] == want) expected.push_back(std::uint32_t(i));
    for (std::size_t start = 0; start <= ids.size() + 2; ++start) {
      std::size_t hint = start;
      const auto found = index.of(want, hint);
      std::vector<std::uint32_t> got;
      for (const CorrelationEntry& e : found) {
        EXPECT_EQ(e.correlation_id, want);
        got.push_back(e.order);
      }
      EXPECT_EQ(got, expected) << "id " << want << " from hint " << start;
      // The hint lands where the id is (or would be), so the next lookup starts near it.
      std::size_t again = hint;
      EXPECT_EQ(index.of(want, again).size(), expected.size());
      EXPECT_EQ(again, hint);
    }
  }
}

TEST(CorrelationIndex, EmptyIndexFindsNothing) {
  const CorrelationIndex index({});
  for (std::size_t start : {0u, 1u, 5u}) {
    std::size_t hint = start;
    EXPECT_TRUE(index.of(42, hint).empty());
  }
}

}  // namespace
}  // namespace oomscope::analysis
