// detail::AddressIndex against std::unordered_map on the same random inserts, overwrites and erases of
// allocator-like addresses (512-aligned, reused), through several rehashes.

#include "core/snapshot/detail/address_index.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace oomscope::snapshot::detail {
namespace {

TEST(AddressIndex, AgreesWithUnorderedMap) {
  std::mt19937_64 rng(29);
  AddressIndex index(4);
  std::unordered_map<std::uint64_t, std::uint32_t> ref;
  for (std::uint32_t step = 0; step < 400000; ++step) {
    // Few distinct addresses at first (long probe runs, erases in the middle of them), more later.
    const std::uint64_t span = step < 100000 ? 64 : 20000;
    const std::uint64_t addr = 0x7f0000000000ull + (rng() % span) * 512;
    const auto op = rng() % 3;
    if (op == 0) {
      index.erase(addr);
      ref.erase(addr);
    } else {
      index.insert_or_assign(addr, step);
      ref[addr] = step;
    }
    ASSERT_EQ(index.size(), ref.size()) << step;
    const std::uint64_t probe = 0x7f0000000000ull + (rng() % span) * 512;
    const auto it = ref.find(probe);
    const std::uint32_t* got = index.find(probe);
    ASSERT_EQ(got != nullptr, it != ref.end()) << step;
    if (got) {
      ASSERT_EQ(*got, it->second) << step;
    }
    ASSERT_EQ(index.contains(probe), it != ref.end());
  }
  for (const auto& [addr, value] : ref) ASSERT_EQ(*index.find(addr), value);
}

}  // namespace
}  // namespace oomscope::snapshot::detail
