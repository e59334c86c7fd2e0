#include "core/allocator/recorded_addresses.h"

#include <iterator>

namespace oomscope::allocator {

RecordedAddresses::RecordedAddresses(const std::vector<snapshot::TraceEntry>& trace, std::uint64_t floor)
    : above_(floor) {
  for (const snapshot::TraceEntry& e : trace) {
    if (e.action == snapshot::Action::SegmentAlloc)
      allocs_.push_back({e.addr, static_cast<std::uint64_t>(e.size)});
    else if (e.action == snapshot::Action::SegmentMap)
      maps_.push_back({e.addr, static_cast<std::uint64_t>(e.size)});
  }
}

void RecordedAddresses::occupy(std::uint64_t addr, std::uint64_t size) { held_[addr] = addr + size; }

bool RecordedAddresses::is_free(std::uint64_t addr, std::uint64_t size) const {
  auto it = held_.upper_bound(addr);
  if (it != held_.end() && it->first < addr + size) return false;
  if (it != held_.begin() && std::prev(it)->second > addr) return false;
  return true;
}

std::uint64_t RecordedAddresses::segment_address(std::uint64_t size) {
  std::uint64_t addr = 0;
  const std::size_t n = next_alloc_++;
  if (n < allocs_.size() && allocs_[n].size == size && is_free(allocs_[n].addr, size))
    addr = allocs_[n].addr;
  else
    addr = above_.take(size);
  held_[addr] = addr + size;
  return addr;
}

std::uint64_t RecordedAddresses::reservation_address(std::uint64_t size) {
  while (next_map_ < maps_.size()) {
    const Recorded& m = maps_[next_map_++];
    if (is_free(m.addr, 1)) {
      held_[m.addr] = m.addr + size;
      return m.addr;
    }
  }
  const std::uint64_t addr = above_.take(size);
  held_[addr] = addr + size;
  return addr;
}

void RecordedAddresses::released(std::uint64_t addr) { held_.erase(addr); }

}  // namespace oomscope::allocator
