#pragma once
// Runs independent replays (the what-if scenarios, the two capacity searches) on a few threads: the
// calling thread and up to threads - 1 std::jthreads, each taking the next task in turn. Results come back
// in task order, whatever order the threads finish in, so the output is the same for any thread count. A
// task that throws asks the others to stop through `stop_all` (the replays check it every 4096 entries);
// afterwards its error is rethrown: the first that is not Cancelled in task order, else the first.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <stop_token>
#include <thread>
#include <vector>

#include "core/util/error.h"

namespace oomscope::allocator::detail {

template <class R>
std::vector<R> run_parallel(const std::vector<std::function<R()>>& tasks, unsigned threads,
                            std::stop_source& stop_all) {
  const std::size_t n = tasks.size();
  std::vector<R> out(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        out[i] = tasks[i]();
      } catch (...) {
        errors[i] = std::current_exception();
        stop_all.request_stop();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    const std::size_t helpers = std::min<std::size_t>(std::max(threads, 1u), n) - (n > 0 ? 1 : 0);
    pool.reserve(helpers);
    for (std::size_t k = 0; k < helpers; ++k) pool.emplace_back(work);
    work();
  }  // joined
  std::exception_ptr first;
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const Cancelled&) {
      if (!first) first = e;
    } catch (...) {
      std::rethrow_exception(e);
    }
  }
  if (first) std::rethrow_exception(first);
  return out;
}

}  // namespace oomscope::allocator::detail
