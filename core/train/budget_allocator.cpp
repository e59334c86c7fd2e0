// The budgeted allocator. Includes c10 headers only (not torch/torch.h), so this file compiles quickly.
//
// Each block carries a 64-byte header holding its size, placed before the data so that the data pointer is
// also the deleter's context (LibTorch's raw_allocate/raw_deallocate require that).

#include "core/train/budget_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#ifdef OOMSCOPE_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

#include "core/util/bytes.h"

namespace oomscope::train {

namespace {

constexpr std::size_t kHeader = 64;  // keeps the data 64-byte aligned, as LibTorch's own allocator does

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};
std::atomic<std::int64_t> g_budget{0};
std::atomic<std::int64_t> g_ooms{0};
std::atomic<std::int64_t> g_allocs{0};
std::atomic<std::int64_t> g_last_request{0};
std::atomic<std::int64_t> g_last_live{0};
std::atomic<bool> g_installed{false};

void release(void* data) {
  if (!data) return;
  char* base = static_cast<char*>(data) - kHeader;
  std::int64_t size = 0;
  std::memcpy(&size, base, sizeof size);
  g_live.fetch_sub(size, std::memory_order_relaxed);
  std::free(base);
}

[[noreturn]] void refuse(std::int64_t n, std::int64_t live, std::int64_t budget) {
  g_ooms.fetch_add(1, std::memory_order_relaxed);
  g_last_request.store(n, std::memory_order_relaxed);
  g_last_live.store(live, std::memory_order_relaxed);
  const std::int64_t free_bytes = budget > live ? budget - live : 0;
  C10_THROW_ERROR(OutOfMemoryError,
                  "CPU out of memory (oomscope budget): tried to allocate " + std::to_string(n) + " bytes (" +
                      format_bytes(n) + "); " + std::to_string(live) + " bytes in use, " +
                      std::to_string(free_bytes) + " bytes free of a " + std::to_string(budget) +
                      "-byte budget (" + format_bytes(budget) + ")");
}

struct BudgetAllocator final : c10::Allocator {
  c10::DataPtr allocate(std::size_t nbytes) const override {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (nbytes == 0) return {nullptr, nullptr, &release, cpu};
    const auto n = static_cast<std::int64_t>(nbytes);
    // Reserve the bytes first, so that concurrent allocations cannot overshoot the budget together.
    std::int64_t live = g_live.load(std::memory_order_relaxed);
    for (;;) {
      const std::int64_t budget = g_budget.load(std::memory_order_relaxed);
      if (budget > 0 && n > budget - live) refuse(n, live, budget);
      if (g_live.compare_exchange_weak(live, live + n, std::memory_order_relaxed)) break;
    }
    void* base = nullptr;
    if (posix_memalign(&base, kHeader, nbytes + kHeader) != 0 || !base) {
      g_live.fetch_sub(n, std::memory_order_relaxed);
      // The host itself is out of memory: still the typed error, with the same figures.
      refuse(n, live, g_budget.load(std::memory_order_relaxed));
    }
    std::memcpy(base, &n, sizeof n);
    const std::int64_t now = live + n;
    std::int64_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    void* data = static_cast<char*>(base) + kHeader;
    return {data, data, &release, cpu};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
};

BudgetAllocator g_allocator;

}  // namespace

void install_budget_allocator() {
  if (g_installed.exchange(true)) return;
  // Priority above the default registration, so that nothing registered later at priority 0 replaces it.
  c10::SetCPUAllocator(&g_allocator, /*priority=*/100);
}

void set_budget(std::int64_t bytes) { g_budget.store(bytes > 0 ? bytes : 0); }

AllocatorStats allocator_stats() {
  AllocatorStats s;
  s.installed = g_installed.load();
  s.live_bytes = g_live.load();
  s.peak_bytes = g_peak.load();
  s.budget_bytes = g_budget.load();
  s.oom_count = g_ooms.load();
  s.allocations = g_allocs.load();
  s.last_oom_request = g_last_request.load();
  s.last_oom_live = g_last_live.load();
  return s;
}

void reset_peak() { g_peak.store(g_live.load()); }

#ifndef OOMSCOPE_TORCH_VERSION
#define OOMSCOPE_TORCH_VERSION "unknown"
#endif

std::string torch_version() { return OOMSCOPE_TORCH_VERSION; }

#ifdef OOMSCOPE_TORCH_CUDA
bool torch_has_cuda() { return true; }

std::string set_cuda_budget(std::int64_t bytes) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return "no CUDA device is present";
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || total_b == 0) return "cudaMemGetInfo failed";
  if (bytes <= 0 || static_cast<std::size_t>(bytes) > total_b)
    return "a budget of " + std::to_string(bytes) + " bytes does not fit the device's " +
           std::to_string(total_b) + " bytes";
  c10::cuda::CUDACachingAllocator::setMemoryFraction(double(bytes) / double(total_b), 0);
  return {};
}

std::string check_cuda_budget(std::int64_t bytes) {
  if (auto why = set_cuda_budget(bytes); !why.empty()) return why;
  namespace cca = c10::cuda::CUDACachingAllocator;
  void* small = nullptr;
  try {
    small = cca::raw_alloc(static_cast<std::size_t>(bytes / 4));
  } catch (const c10::Error& e) {
    return std::string("a quarter of the budget was refused: ") + e.what_without_backtrace();
  }
  std::string result = "an allocation of the whole budget on top of a quarter of it was granted";
  try {
    void* big = cca::raw_alloc(static_cast<std::size_t>(bytes));
    cca::raw_delete(big);
  } catch (const c10::OutOfMemoryError&) {
    result.clear();
  } catch (const c10::Error& e) {
    result = std::string("refused with an untyped error: ") + e.what_without_backtrace();
  }
  cca::raw_delete(small);
  cca::emptyCache();
  return result;
}
#else
bool torch_has_cuda() { return false; }

std::string set_cuda_budget(std::int64_t) { return "this LibTorch was built without CUDA"; }
std::string check_cuda_budget(std::int64_t) { return "this LibTorch was built without CUDA"; }
#endif

}  // namespace oomscope::train
