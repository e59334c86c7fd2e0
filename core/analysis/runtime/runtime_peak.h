#pragma once
// The runtime peak explained (docs/report-rules.md, "The runtime peak"): which execution it falls in, what
// was live at that moment by the execution or host event that produced it, and the reconciliation
//   peak = in use at the execution's start + its allocations live at the peak (as served, i.e. chunks)
//          + allocations of other threads in that time - frees of older chunks in that time
// with every term from the allocator events. Also the requested -> chunk view of the largest allocations
// live at the peak and how many allocations the BFC allocator rounded up by 1 MiB or more.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/runtime/runtime_attribution.h"
#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

// One allocation live at the peak: what was asked for and the chunk that served it.
struct PeakChunk {
  std::int64_t requested_bytes = 0;
  std::int64_t chunk_bytes = 0;
  std::int64_t time_ps = 0;  // when it was allocated
  std::string producer;      // the live group it belongs to ("outputs of jit_step execution 3", ...)
};

// A module's share of what was live at the peak: the chunks its executions allocated and still held.
struct PeakModuleShare {
  std::string module;  // execution label: the name, with "(program id)" when several modules share it
  std::int64_t bytes = 0;
  std::int64_t requested_bytes = 0;
  std::int64_t allocations = 0;
  std::int64_t executions = 0;  // how many of its executions still held memory at the peak
};

struct RuntimePeak {
  std::uint32_t allocator = 0;
  std::int64_t peak_bytes = 0;  // bytes in use at the peak event (read)
  std::int64_t time_ps = 0;
  // The execution whose host span holds the peak (preferring one on the peak event's own thread): its label,
  // number and span. Absent when the peak lies outside every execution.
  std::optional<RuntimeExecution> execution;
  // The reconciliation (all measured from the events, except in_use_at_start, read).
  std::int64_t in_use_at_start = 0;  // just before the execution started
  std::int64_t own_chunk_bytes = 0;  // allocated on its thread inside its span, live at the peak
  std::int64_t own_requested_bytes = 0;
  std::int64_t own_allocations = 0;
  std::int64_t other_chunk_bytes =
      0;  // allocated on other threads between its start and the peak, still live
  std::int64_t other_allocations = 0;
  std::int64_t freed_bytes = 0;  // chunks allocated before its start and freed between its start and the peak
  std::int64_t freed_count = 0;
  std::int64_t unexplained_bytes = 0;  // peak - (the terms above): nonzero only if the events disagree
  // What was live at the peak, by the host event that produced it (LiveGroup labels), largest first.
  std::vector<LiveGroup> live_by_producer;
  std::int64_t live_groups_total = 0;     // before `top` cut the list
  std::vector<PeakModuleShare> modules;   // by bytes, largest first
  std::vector<PeakChunk> largest_chunks;  // largest chunk first, `top` at most
  std::int64_t live_allocations = 0;
  // Every allocation of this allocator in the events given: how many got a chunk at least 1 MiB larger than
  // their request, and the bytes of those differences (measured).
  // The allocator's own fragmentation stat (read; XProf's "fragmentation"): at the peak event, and its
  // largest value with the time of its first event; bytes reserved at the peak.
  double fragmentation_at_peak = 0.0;
  double largest_fragmentation = 0.0;
  std::int64_t largest_fragmentation_time_ps = 0;
  std::int64_t bytes_reserved_at_peak = 0;
  std::int64_t allocations_seen = 0;
  std::int64_t rounded_up_1mib = 0;
  std::int64_t rounded_up_1mib_bytes = 0;
};

struct RuntimePeakInput {
  std::span<const capture::MemoryEvent>
      memory;  // sorted by time, the whole capture's (or up to a window end)
  std::span<const RuntimeExecution> executions;  // every execution of the capture
  std::uint32_t host_plane = 0;
  const HostTimeline* host = nullptr;
  std::uint32_t allocator = 0;
  // The peak to explain (AllocatorRuntime::peak_bytes_in_use and peak_time_ps): the first event of the
  // allocator at that time with that in-use figure.
  std::int64_t peak_bytes = 0;
  std::int64_t peak_time_ps = 0;
  std::size_t top = 5;      // largest chunks listed
  std::size_t groups = 25;  // live groups listed
  // Allocations before this time are not counted in allocations_seen / rounded_up_* (a time window's start).
  std::int64_t count_from_ps = std::numeric_limits<std::int64_t>::min();
};

// nullopt when the allocator has no event at the peak (no allocator events).
std::optional<RuntimePeak> explain_runtime_peak(const RuntimePeakInput& in);

// The peak of `allocator` as `runtime` (an analysis of `capture`, with or without a time window) found it,
// explained over the capture's events and that analysis's executions.
std::optional<RuntimePeak> explain_runtime_peak(const capture::Capture& capture,
                                                const RuntimeAnalysis& runtime, std::uint32_t allocator,
                                                std::size_t top, std::size_t groups);

}  // namespace oomscope::analysis
