#include "core/analysis/report/donation_liveness.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

#include "core/analysis/runtime/runtime_allocators.h"

namespace oomscope::analysis {

using capture::MemoryEvent;
using capture::MemoryEventKind;

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr std::size_t kMaxCalls = 8;

// When each allocation (index into memory) of the allocator is freed; kNever when not in the capture.
std::unordered_map<std::size_t, std::int64_t> free_times(std::span<const MemoryEvent> memory,
                                                         std::uint32_t allocator) {
  std::unordered_map<std::size_t, std::int64_t> out;
  std::unordered_map<std::uint64_t, std::size_t> open;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const MemoryEvent& e = memory[i];
    if (e.allocator != allocator) continue;
    if (e.kind == MemoryEventKind::Allocation) {
      open[e.addr] = i;
      out[i] = kNever;
    } else if (auto it = open.find(e.addr); it != open.end()) {
      out[it->second] = e.time_ps;
      open.erase(it);
    }
  }
  return out;
}

}  // namespace

DonationLiveness check_donation_liveness(std::span<const MemoryEvent> memory, std::uint32_t allocator,
                                         std::span<const RuntimeExecution> module_runs,
                                         std::span<const RuntimeExecution> all,
                                         std::span<const std::int64_t> sizes,
                                         std::span<const std::int64_t> parameter_sizes) {
  DonationLiveness out;
  out.sizes.assign(sizes.begin(), sizes.end());
  out.parameter_sizes.assign(parameter_sizes.begin(), parameter_sizes.end());
  if (module_runs.empty() || sizes.empty() || memory.empty()) return out;
  out.fate = ArgumentFate::Unknown;
  const auto freed_at = free_times(memory, allocator);
  // The last kMaxCalls calls only: each looks at every event before it.
  for (std::size_t k = module_runs.size() > kMaxCalls ? module_runs.size() - kMaxCalls : 0;
       k < module_runs.size(); ++k) {
    const RuntimeExecution& run = module_runs[k];
    ++out.calls;
    // The next execution of anything after this call ends: a buffer freed before it was read by nothing else.
    std::int64_t next_any = kNever;
    for (const RuntimeExecution& e : all)
      if (e.start_ps > run.end_ps) {
        next_any = std::min(next_any, e.start_ps);
      }
    // The module's next call (kNever: none).
    const std::int64_t next_own = k + 1 < module_runs.size() ? module_runs[k + 1].start_ps : kNever;
    const std::vector<std::size_t> live = live_allocations_before(memory, allocator, run.start_ps);
    bool every_size_dead = true;
    bool some_size_reused = false;
    for (std::int64_t size : sizes) {
      bool dead = false;
      // Buffers of this size still live at the module's next call: as many as it has parameters of this
      // size, and the same arrays may be passed again.
      std::int64_t kept = 0;
      const auto wanted =
          std::max<std::int64_t>(1, std::count(parameter_sizes.begin(), parameter_sizes.end(), size));
      for (std::size_t i : live) {
        if (memory[i].requested_bytes != size) continue;
        auto f = freed_at.find(i);
        const std::int64_t freed = f == freed_at.end() ? kNever : f->second;
        if (freed >= run.end_ps && freed <= next_any && freed != kNever) dead = true;
        if (next_own != kNever && freed > next_own) ++kept;
      }
      if (!dead) every_size_dead = false;
      if (kept >= wanted) some_size_reused = true;
    }
    if (every_size_dead) ++out.dead_calls;
    if (some_size_reused) ++out.reused_calls;
  }
  if (out.dead_calls == out.calls)
    out.fate = ArgumentFate::DeadAfterCall;
  else if (out.reused_calls > 0)
    out.fate = ArgumentFate::LiveAtLaterCalls;
  return out;
}

}  // namespace oomscope::analysis
