#pragma once
// A map from a block address to a 32-bit index, for the passes over a trace that pair allocs with frees
// (millions of inserts and erases): open addressing with linear probing and backward-shift erase in one
// flat table, so no node is allocated per alloc as std::unordered_map does. Lookups give the same answers
// as a std::unordered_map<std::uint64_t, std::uint32_t>; iteration order is not offered.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace oomscope::snapshot::detail {

class AddressIndex {
 public:
  explicit AddressIndex(std::size_t expected = 1024) { rehash(capacity_for(expected)); }

  std::size_t size() const { return size_; }
  bool contains(std::uint64_t addr) const { return slots_[find_slot(addr)].used; }
  // The index stored for addr, or nullptr.
  const std::uint32_t* find(std::uint64_t addr) const {
    const Slot& s = slots_[find_slot(addr)];
    return s.used ? &s.value : nullptr;
  }
  void insert_or_assign(std::uint64_t addr, std::uint32_t value) {
    std::size_t i = find_slot(addr);
    if (!slots_[i].used) {
      if ((size_ + 1) * 4 > slots_.size() * 3) {  // keep the load under 3/4
        rehash(slots_.size() * 2);
        i = find_slot(addr);
      }
      ++size_;
    }
    slots_[i] = Slot{addr, value, true};
  }
  void erase(std::uint64_t addr) {
    std::size_t hole = find_slot(addr);
    if (!slots_[hole].used) return;
    --size_;
    // Backward shift: move later entries of the probe run into the hole while their home allows it.
    for (std::size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t home = home_of(slots_[j].key);
      if (((j - home) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].used = false;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = 0;
    bool used = false;
  };
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c * 3 < n * 4) c *= 2;
    return c;
  }
  std::size_t home_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_) & mask_;
  }
  std::size_t find_slot(std::uint64_t key) const {
    std::size_t i = home_of(key);
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask_;
    return i;
  }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) {
        slots_[find_slot(s.key)] = s;
        ++size_;
      }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  int shift_ = 64;
};

}  // namespace oomscope::snapshot::detail
