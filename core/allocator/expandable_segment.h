#pragma once
// One expandable segment of the model (expandable_segments:True): a virtual range reserved once per stream
// and pool, backed by physical pages (2 MiB in the small pool, 20 MiB in the large) mapped and unmapped as
// the allocator grows and shrinks it. Only the page bookkeeping: which pages are mapped.

#include <cstdint>
#include <vector>

namespace oomscope::allocator {

struct PageRange {
  std::uint64_t ptr = 0;
  std::uint64_t size = 0;  // 0: nothing
};

class ExpandableSegment {
 public:
  ExpandableSegment(std::uint64_t base, std::uint64_t page_size, std::uint64_t pages, std::int64_t stream,
                    bool small_pool);

  std::uint64_t base() const { return base_; }
  std::uint64_t size() const { return page_size_ * pages_; }
  std::uint64_t page_size() const { return page_size_; }
  std::int64_t stream() const { return stream_; }
  bool small_pool() const { return small_; }
  bool released() const { return released_; }
  void release() { released_ = true; }

  // The pages that [ptr, ptr+size) touches (ptr page-aligned), or nothing when they would not fit in
  // `available` bytes (all or nothing, as PyTorch releases the pages of a map that fails half-way).
  PageRange map(std::uint64_t ptr, std::uint64_t size, std::uint64_t available);
  // The pages lying wholly inside [ptr, ptr+size), unmapped; nothing when there are none.
  PageRange unmap(std::uint64_t ptr, std::uint64_t size);
  std::uint64_t mapped_bytes() const { return mapped_pages_ * page_size_; }

 private:
  std::uint64_t page_of(std::uint64_t ptr) const { return (ptr - base_) / page_size_; }
  std::uint64_t base_, page_size_, pages_;
  std::int64_t stream_;
  bool small_;
  bool released_ = false;
  std::uint64_t mapped_pages_ = 0;
  std::vector<bool> mapped_;  // grows to the highest page ever mapped
};

}  // namespace oomscope::allocator
