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

// What could be a call's arguments at its start: the live allocations whose request has a parameter's
// size, and the bytes live since before the capture (in use minus the chunks of the live allocations).
struct Candidates {
  std::vector<std::size_t> allocations;  // indices into memory, in time order
  std::int64_t before_capture = 0;
  // They hold the parameters and leave less than the smallest parameter over: no other array of a
  // parameter's size is live, so they are the arguments.
  bool tight = false;

  bool same_as(const Candidates& o) const {
    return allocations == o.allocations && before_capture == o.before_capture;
  }
};

Candidates candidates_at(std::span<const MemoryEvent> memory, std::uint32_t allocator, std::int64_t t,
                         std::span<const std::int64_t> parameter_sizes) {
  Candidates c;
  if (parameter_sizes.empty()) return c;
  const std::int64_t in_use = bytes_in_use_before(memory, allocator, t);
  std::int64_t captured = 0;
  std::int64_t candidate_bytes = 0;
  for (std::size_t i : live_allocations_before(memory, allocator, t)) {
    captured += memory[i].allocation_bytes;
    if (std::find(parameter_sizes.begin(), parameter_sizes.end(), memory[i].requested_bytes) ==
        parameter_sizes.end())
      continue;
    c.allocations.push_back(i);
    candidate_bytes += memory[i].requested_bytes;
  }
  c.before_capture = std::max<std::int64_t>(0, in_use - captured);
  candidate_bytes += c.before_capture;
  std::int64_t needed = 0;
  for (std::int64_t s : parameter_sizes) needed += s;
  const std::int64_t smallest = *std::min_element(parameter_sizes.begin(), parameter_sizes.end());
  c.tight = smallest > 0 && candidate_bytes >= needed && candidate_bytes - needed < smallest;
  return c;
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
  out.total_calls = static_cast<std::int64_t>(module_runs.size());
  if (module_runs.empty() || sizes.empty() || memory.empty()) return out;
  out.fate = ArgumentFate::Unknown;
  const auto freed_at = free_times(memory, allocator);
  const std::size_t first = module_runs.size() > kMaxCalls ? module_runs.size() - kMaxCalls : 0;
  // The argument candidates at each checked call (and at the one after the window's last, none).
  std::vector<Candidates> at;
  for (std::size_t k = first; k < module_runs.size(); ++k)
    at.push_back(candidates_at(memory, allocator, module_runs[k].start_ps, parameter_sizes));
  // The last kMaxCalls calls only: each looks at every event before it.
  for (std::size_t k = first; k < module_runs.size(); ++k) {
    const RuntimeExecution& run = module_runs[k];
    ++out.calls;
    // The next execution of anything after this call ends: a buffer freed before it was read by nothing else.
    std::int64_t next_any = kNever;
    for (const RuntimeExecution& e : all)
      if (e.start_ps > run.end_ps) {
        next_any = std::min(next_any, e.start_ps);
      }
    const std::vector<std::size_t> live = live_allocations_before(memory, allocator, run.start_ps);
    bool every_size_dead = true;
    for (std::int64_t size : sizes) {
      bool dead = false;
      for (std::size_t i : live) {
        if (memory[i].requested_bytes != size) continue;
        auto f = freed_at.find(i);
        const std::int64_t freed = f == freed_at.end() ? kNever : f->second;
        if (freed >= run.end_ps && freed <= next_any && freed != kNever) dead = true;
      }
      if (!dead) every_size_dead = false;
    }
    if (every_size_dead) ++out.dead_calls;
    // Passed again: the next call's candidates are this call's, and both leave no room for another array.
    if (k + 1 < module_runs.size()) {
      const Candidates& now = at[k - first];
      const Candidates& next = at[k + 1 - first];
      if (now.tight && next.tight && now.same_as(next)) {
        ++out.reused_calls;
        out.reused_by.push_back(static_cast<std::int64_t>(k) + 2);
      }
    }
  }
  if (out.dead_calls == out.calls)
    out.fate = ArgumentFate::DeadAfterCall;
  else if (out.reused_calls > 0)
    out.fate = ArgumentFate::LiveAtLaterCalls;
  return out;
}

}  // namespace oomscope::analysis
