// PageWarmer: faults in freshly reserved event tables on a second thread while the scan fills them.
//
// On a big capture the kernel's work of handing the reader zeroed pages for its event tables (hundreds of
// MiB) costs about as much as the scan itself, and it used to happen inline, on the scan's first write to
// each page. MADV_POPULATE_WRITE does the same faulting from another thread without touching the
// contents: a page the scan has already written is left as it is, so the result cannot depend on timing.
// Where the kernel lacks it (before Linux 5.14) the call fails and the scan faults the pages as before.

#include <sys/mman.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include "core/capture/detail/capture_builder.h"

namespace oomscope::capture {

namespace {
#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // Linux uapi value, for older libc headers
#endif
}  // namespace

PageWarmer::~PageWarmer() {
  if (worker_.joinable()) {
    worker_.request_stop();
    cv_.notify_all();
    worker_.join();
  }
}

void PageWarmer::warm(void* begin, std::size_t bytes) {
  if (bytes == 0) return;
  {
    std::lock_guard lock(mutex_);
    queue_.emplace_back(static_cast<std::byte*>(begin), bytes);
  }
  if (!worker_.joinable()) {
    try {
      worker_ = std::jthread([this](std::stop_token stop) { run(stop); });
    } catch (const std::system_error&) {
      std::lock_guard lock(mutex_);  // no thread to be had: the scan faults the pages itself
      queue_.clear();
      return;
    }
  }
  cv_.notify_all();
}

void PageWarmer::wait() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void PageWarmer::run(std::stop_token stop) {
  // A line written as many XLine entries (a long capture, or one made by repeating copies) has its table
  // filled a slice at a time, all tables at about the same pace; so every table is warmed a slice per
  // round, in the order the scan will reach them. Slices are small, so that stopping is quick too.
  constexpr std::size_t kRounds = 64, kMinSlice = 2u << 20;
  struct Range {
    std::byte* at;
    std::size_t left, slice;
  };
  std::vector<Range> ranges;
  const auto take_queue = [&] {  // with mutex_ held
    for (const auto& [at, bytes] : queue_)
      ranges.push_back(Range{at, bytes, std::max(bytes / kRounds, kMinSlice)});
    queue_.clear();
  };
  std::unique_lock lock(mutex_);
  while (true) {
    cv_.wait(lock, stop, [this] { return !queue_.empty(); });
    if (stop.stop_requested()) break;
    busy_ = true;
    take_queue();
    lock.unlock();
    bool failed = false;
    while (!ranges.empty() && !failed && !stop.stop_requested()) {
      for (Range& r : ranges) {
        const std::size_t step = std::min(r.left, r.slice);
        if (::madvise(r.at, step, kPopulateWrite) != 0) failed = true;  // e.g. a kernel without it: give up
        r.at += step;
        r.left -= step;
        if (failed || stop.stop_requested()) break;
      }
      std::erase_if(ranges, [](const Range& r) { return r.left == 0; });
      // Ranges handed over meanwhile join the rounds.
      std::lock_guard more(mutex_);
      take_queue();
    }
    ranges.clear();
    lock.lock();
    busy_ = false;
    idle_.notify_all();
  }
  busy_ = false;
  queue_.clear();
  idle_.notify_all();
}

}  // namespace oomscope::capture
