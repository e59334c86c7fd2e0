#pragma once
// Segment addresses for a replay: the n-th cudaMalloc of the replay gets the address of the recording's
// n-th segment_alloc when it has the same size and that range is free in the model; an expandable segment's
// range starts at the recording's next segment_map that lies in no range the model holds. Anything else
// is placed above every recorded address (addresses only order equal-sized free blocks and name segments).

#include <cstdint>
#include <map>
#include <vector>

#include "core/allocator/allocator_ledger.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

class RecordedAddresses final : public AddressSource {
 public:
  RecordedAddresses(const std::vector<snapshot::TraceEntry>& trace, std::uint64_t floor);

  // A range that exists at the start of the replay.
  void occupy(std::uint64_t addr, std::uint64_t size);
  std::uint64_t segment_address(std::uint64_t size) override;
  std::uint64_t reservation_address(std::uint64_t size) override;
  void released(std::uint64_t addr) override;

 private:
  bool is_free(std::uint64_t addr, std::uint64_t size) const;
  struct Recorded {
    std::uint64_t addr, size;
  };
  std::vector<Recorded> allocs_, maps_;
  std::size_t next_alloc_ = 0, next_map_ = 0;
  std::map<std::uint64_t, std::uint64_t> held_;  // addr -> end of each range the model holds
  BumpAddresses above_;
};

}  // namespace oomscope::allocator
