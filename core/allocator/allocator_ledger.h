#pragma once
// What the model's device allocator has reserved and handed out, the capacity it may reserve up to, and
// the segment events it emitted (the model's own segment_alloc / segment_free / segment_map /
// segment_unmap, in order, to compare with the recorded trace). Also where new segments' addresses come from.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/allocator/allocator_config.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

struct SegmentEvent {
  snapshot::Action action = snapshot::Action::SegmentAlloc;
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  std::int64_t stream = 0;
};

struct AllocatorLedger {
  std::uint64_t capacity = kNoLimit;  // the most the allocator can reserve (cudaMalloc fails beyond)
  std::uint64_t reserved = 0;         // Σ segment sizes (mapped pages for expandable segments)
  std::uint64_t allocated = 0;        // Σ sizes of allocated blocks (torch.cuda.memory_allocated)
  std::uint64_t requested = 0;        // Σ requests of allocated blocks
  std::uint64_t peak_reserved = 0, peak_allocated = 0, peak_requested = 0;
  std::vector<SegmentEvent> events;

  std::uint64_t available() const { return capacity > reserved ? capacity - reserved : 0; }
  void reserve(std::uint64_t n) {
    reserved += n;
    peak_reserved = std::max(peak_reserved, reserved);
  }
  void unreserve(std::uint64_t n) { reserved -= std::min(reserved, n); }
  void allocate(std::uint64_t size, std::uint64_t req) {
    allocated += size;
    requested += req;
    peak_allocated = std::max(peak_allocated, allocated);
    peak_requested = std::max(peak_requested, requested);
  }
  void deallocate(std::uint64_t size, std::uint64_t req) {
    allocated -= std::min(allocated, size);
    requested -= std::min(requested, req);
  }
};

// Where a new segment lives: cudaMalloc and cuMemAddressReserve choose addresses the allocator cannot
// predict; addresses only order equal-sized free blocks and name segments.
class AddressSource {
 public:
  virtual ~AddressSource() = default;
  virtual std::uint64_t segment_address(std::uint64_t size) = 0;      // a cudaMalloc of `size`
  virtual std::uint64_t reservation_address(std::uint64_t size) = 0;  // an expandable segment's range
  virtual void released(std::uint64_t addr) = 0;                      // cudaFree / address range freed
};

// Addresses above `floor`, each 2 MiB-aligned after the one before (never reused).
class BumpAddresses final : public AddressSource {
 public:
  explicit BumpAddresses(std::uint64_t floor = 1ull << 40) : next_(align(floor)) {}
  std::uint64_t segment_address(std::uint64_t size) override { return take(size); }
  std::uint64_t reservation_address(std::uint64_t size) override { return take(size); }
  void released(std::uint64_t) override {}
  std::uint64_t take(std::uint64_t size) {
    const std::uint64_t a = next_;
    next_ = align(next_ + std::max<std::uint64_t>(size, 1));
    return a;
  }

 private:
  static std::uint64_t align(std::uint64_t a) { return (a + kSmallBuffer - 1) / kSmallBuffer * kSmallBuffer; }
  std::uint64_t next_;
};

}  // namespace oomscope::allocator
