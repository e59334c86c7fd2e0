// The budgeted allocator: installed as LibTorch's CPU allocator, throws the typed OOM at the right size,
// frees what it gave. c10 headers only (cheap to compile).

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include "core/train/budget_allocator.h"

namespace oomscope::train {
namespace {

struct BudgetGuard {
  ~BudgetGuard() { set_budget(0); }
};

TEST(BudgetAllocator, InstalledInPlaceOfTheCpuAllocator) {
  install_budget_allocator();
  const auto before = allocator_stats();
  {
    c10::DataPtr p = c10::GetCPUAllocator()->allocate(4096);
    ASSERT_NE(p.get(), nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.get()) % 64, 0u);
    EXPECT_EQ(allocator_stats().live_bytes, before.live_bytes + 4096);
    EXPECT_EQ(allocator_stats().allocations, before.allocations + 1);
  }
  EXPECT_EQ(allocator_stats().live_bytes, before.live_bytes);
  EXPECT_TRUE(allocator_stats().installed);
}

TEST(BudgetAllocator, ThrowsTheTypedErrorAtExactlyTheBudget) {
  install_budget_allocator();
  BudgetGuard guard;
  const std::int64_t live = allocator_stats().live_bytes;
  set_budget(live + 10000);
  c10::DataPtr a = c10::GetCPUAllocator()->allocate(6000);
  c10::DataPtr b = c10::GetCPUAllocator()->allocate(4000);  // exactly at the budget: granted
  EXPECT_EQ(allocator_stats().live_bytes, live + 10000);
  const auto ooms = allocator_stats().oom_count;
  try {
    c10::DataPtr c = c10::GetCPUAllocator()->allocate(1);
    FAIL() << "one byte past the budget was granted";
  } catch (const c10::OutOfMemoryError& e) {
    const std::string msg = e.what_without_backtrace();
    EXPECT_NE(msg.find("tried to allocate 1 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0 bytes free"), std::string::npos) << msg;
  }
  EXPECT_EQ(allocator_stats().oom_count, ooms + 1);
  EXPECT_EQ(allocator_stats().last_oom_request, 1);
  EXPECT_EQ(allocator_stats().live_bytes, live + 10000);  // the refused request left nothing behind
  b.clear();
  EXPECT_EQ(allocator_stats().live_bytes, live + 6000);
  try {
    c10::DataPtr c = c10::GetCPUAllocator()->allocate(5000);
    FAIL() << "5000 bytes granted with 4000 free";
  } catch (const c10::OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what_without_backtrace()).find("4000 bytes free"), std::string::npos);
  }
  c10::DataPtr d = c10::GetCPUAllocator()->allocate(4000);
  EXPECT_NE(d.get(), nullptr);
}

TEST(BudgetAllocator, PeakFollowsLiveAndResets) {
  install_budget_allocator();
  reset_peak();
  const std::int64_t live = allocator_stats().live_bytes;
  {
    c10::DataPtr a = c10::GetCPUAllocator()->allocate(1 << 20);
    c10::DataPtr b = c10::GetCPUAllocator()->allocate(1 << 19);
  }
  EXPECT_EQ(allocator_stats().peak_bytes, live + (1 << 20) + (1 << 19));
  reset_peak();
  EXPECT_EQ(allocator_stats().peak_bytes, live);
}

TEST(BudgetAllocator, CudaBudgetIsTheCachingAllocatorsFraction) {
  if (!torch_has_cuda())
    GTEST_SKIP() << "this LibTorch was built without CUDA (Debian's libtorch-dev is CPU only)";
  if (const std::string why = set_cuda_budget(1LL << 30); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(check_cuda_budget(1LL << 30), "");
}

}  // namespace
}  // namespace oomscope::train
