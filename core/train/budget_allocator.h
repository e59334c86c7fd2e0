#pragma once
// A budgeted CPU allocator for LibTorch: makes the CPU behave like a GPU of a given size. Installed in place
// of LibTorch's CPU allocator, it counts the live bytes of every CPU tensor allocated after installation,
// tracks the peak, and past the budget throws c10::OutOfMemoryError (the same typed error a CUDA OOM
// raises) with the requested size and the free bytes in the message. Real allocations, real OOMs.
//
// This header is torch-free: the trainer, the GUI-side readers and observers use it without compiling
// LibTorch's headers. Thread-safe (atomics); the budget may change at any time.

#include <cstdint>
#include <string>

namespace oomscope::train {

struct AllocatorStats {
  bool installed = false;
  std::int64_t live_bytes = 0;        // bytes of the tensors allocated through it and not yet freed
  std::int64_t peak_bytes = 0;        // maximum of live_bytes since installation or the last reset_peak()
  std::int64_t budget_bytes = 0;      // 0: no limit
  std::int64_t oom_count = 0;         // allocations refused
  std::int64_t allocations = 0;       // allocations granted
  std::int64_t last_oom_request = 0;  // the size of the latest refused allocation
  std::int64_t last_oom_live = 0;     // live bytes when it was refused
};

// Installs the allocator as LibTorch's CPU allocator (idempotent). Tensors allocated before keep their own
// deleter and are not counted.
void install_budget_allocator();
// 0 removes the limit. Allocations already made are never taken back.
void set_budget(std::int64_t bytes);
AllocatorStats allocator_stats();
// Sets the peak to the current live bytes (so that the next peak is that of what follows).
void reset_peak();

// LibTorch's version ("1.13.0") and whether it was built with CUDA.
std::string torch_version();
bool torch_has_cuda();
// CUDA: the budget as the caching allocator's per-process memory fraction of device 0. Returns an empty
// string on success, else why not (LibTorch without CUDA, no device, budget larger than the device).
std::string set_cuda_budget(std::int64_t bytes);
// CUDA: after set_cuda_budget(bytes), a block of bytes / 4 must be granted and one of `bytes` refused with
// c10::OutOfMemoryError. Returns an empty string when both hold, else what went wrong (or why not run).
std::string check_cuda_budget(std::int64_t bytes);

}  // namespace oomscope::train
