// The standard what-if set on several threads (core/allocator/whatif.cpp, detail/parallel_runs.h): the
// same result, byte for byte in its JSON, on 1, 2 and 4 threads; progress only from the calling thread
// and never falling; a stop requested before or during the run ends it with Cancelled; a failed task's
// error wins over the Cancelled of the tasks it stopped.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/allocator/detail/parallel_runs.h"
#include "core/allocator/whatif.h"
#include "core/allocator/whatif_json.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::allocator {
namespace {

class ThreadCheckingProgress final : public ProgressSink {
 public:
  void report(double fraction, std::string_view) override {
    if (std::this_thread::get_id() != caller) ++foreign;
    if (fraction < last) ++falling;
    last = fraction;
    ++reports;
  }
  std::thread::id caller = std::this_thread::get_id();
  double last = 0;
  int reports = 0, foreign = 0, falling = 0;
};

TEST(WhatIfParallel, SameResultOnAnyThreadCount) {
  const auto snap = snapshot::read_snapshot(std::string(OOMSCOPE_TEST_DATA) +
                                            "/torch_snapshot_decomfl_windows_with_trace.pickle");
  std::string first;
  for (unsigned threads : {1u, 2u, 4u}) {
    WhatIfOptions o;
    o.threads = threads;
    ThreadCheckingProgress progress;
    const WhatIfResult w = run_whatif(*snap, o, progress);
    EXPECT_GT(w.scenarios.size(), 2u);
    EXPECT_EQ(w.capacity_searches.size(), w.best ? 2u : 1u);
    EXPECT_EQ(progress.foreign, 0) << threads << " threads";
    EXPECT_EQ(progress.falling, 0) << threads << " threads";
    EXPECT_GT(progress.reports, 0);
    const std::string json = whatif_json(w).dump();
    if (first.empty())
      first = json;
    else
      EXPECT_EQ(json, first) << threads << " threads";
  }
}

TEST(WhatIfParallel, StopEndsTheRunWithCancelled) {
  const auto snap = snapshot::read_snapshot(std::string(OOMSCOPE_TEST_DATA) +
                                            "/torch_snapshot_decomfl_windows_with_trace.pickle");
  WhatIfOptions o;
  o.threads = 2;
  NullProgress none;
  std::stop_source before;
  before.request_stop();
  EXPECT_THROW(run_whatif(*snap, o, none, before.get_token()), Cancelled);
  // Stopped during the parallel part: a sink that asks for the stop at its third report.
  struct StopAt final : ProgressSink {
    std::stop_source& s;
    int n = 0;
    explicit StopAt(std::stop_source& src) : s(src) {}
    void report(double, std::string_view) override {
      if (++n == 3) s.request_stop();
    }
  };
  std::stop_source during;
  StopAt stopper(during);
  EXPECT_THROW(run_whatif(*snap, o, stopper, during.get_token()), Cancelled);
}

TEST(ParallelRuns, OrderKeptAndTheRealErrorWins) {
  std::stop_source stop;
  std::vector<std::function<int()>> tasks;
  for (int i = 0; i < 9; ++i)
    tasks.emplace_back([i] {
      std::this_thread::sleep_for(std::chrono::milliseconds((9 - i) * 2));
      return i * i;
    });
  const std::vector<int> out = detail::run_parallel(tasks, 3, stop);
  ASSERT_EQ(out.size(), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], i * i);
  EXPECT_FALSE(stop.stop_requested());
  // Task 0 sees the stop that task 1's failure requests and is Cancelled; task 1's error is rethrown.
  std::vector<std::function<int()>> failing;
  failing.emplace_back([&stop]() -> int {
    while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    throw Cancelled();
  });
  failing.emplace_back([]() -> int { throw std::runtime_error("task 1 failed"); });
  EXPECT_THROW(
      {
        try {
          detail::run_parallel(failing, 2, stop);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "task 1 failed");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_TRUE(detail::run_parallel(std::vector<std::function<int()>>{}, 2, stop).empty());
}

}  // namespace
}  // namespace oomscope::allocator
