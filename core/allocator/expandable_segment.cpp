#include "core/allocator/expandable_segment.h"

#include <algorithm>

namespace oomscope::allocator {

ExpandableSegment::ExpandableSegment(std::uint64_t base, std::uint64_t page_size, std::uint64_t pages,
                                     std::int64_t stream, bool small_pool)
    : base_(base), page_size_(page_size), pages_(pages), stream_(stream), small_(small_pool) {}

PageRange ExpandableSegment::map(std::uint64_t ptr, std::uint64_t size, std::uint64_t available) {
  const std::uint64_t begin = page_of(ptr);
  const std::uint64_t end = std::min(pages_, (ptr - base_ + size + page_size_ - 1) / page_size_);
  if (end <= begin) return {ptr, 0};
  const std::uint64_t bytes = (end - begin) * page_size_;
  if (bytes > available) return {ptr, 0};
  if (mapped_.size() < end) mapped_.resize(end, false);
  for (std::uint64_t i = begin; i < end; ++i)
    if (!mapped_[i]) {
      mapped_[i] = true;
      ++mapped_pages_;
    }
  return {base_ + begin * page_size_, bytes};
}

PageRange ExpandableSegment::unmap(std::uint64_t ptr, std::uint64_t size) {
  const std::uint64_t begin = (ptr - base_ + page_size_ - 1) / page_size_;
  const std::uint64_t end = std::min<std::uint64_t>((ptr - base_ + size) / page_size_, mapped_.size());
  if (end <= begin) return {ptr, 0};
  for (std::uint64_t i = begin; i < end; ++i)
    if (mapped_[i]) {
      mapped_[i] = false;
      --mapped_pages_;
    }
  while (!mapped_.empty() && !mapped_.back()) mapped_.pop_back();
  return {base_ + begin * page_size_, (end - begin) * page_size_};
}

}  // namespace oomscope::allocator
