#pragma once
// Internal to the plan analysis (not for other folders): the heap-simulator replay (plan_replay.cpp), the
// heap after each event, the buffers live at the peak and each trace's own peak.
//
// Replay follows XProf's memory-viewer rules (docs/capture-format.md section 6): reference counts live on the
// root canonical buffer, SHARE_WITH links a buffer to its canonical and may revive a canonical that was
// already freed.

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// A stretch of time during which a root canonical buffer's memory is on the heap.
struct LiveSpan {
  std::int32_t root_slot = -1;     // the buffer whose size the heap holds
  std::int32_t display_slot = -1;  // the buffer to show: root for ALLOC, the sharer for a revival
  std::int64_t start = 0;          // event index that made it live
  std::int64_t end = -1;           // event index that freed it; -1 = never freed
  std::int32_t prev_open = -1;     // previous still-open span of the same root (double ALLOC)
};

struct ReplayResult {
  std::vector<std::int64_t> heap_after;                       // heap bytes after each replayed event
  std::vector<const xla::HeapSimulatorTrace::Event*> events;  // the replayed events, in order
  std::int64_t peak_bytes = 0;
  std::int64_t peak_event = -1;                // -1 when the heap never grew
  std::vector<LiveSpan> live_at_peak;          // in the order they became live
  std::vector<std::int32_t> allocations_seen;  // allocation positions touched by the events, sorted
  // Anomalies, counted; the caller turns them into notes.
  std::int64_t unknown_buffers = 0;  // event buffer id (or canonical id) not in logical_buffers
  std::int64_t extra_frees = 0;      // FREE that drove a reference count below zero
  std::int64_t realloc_live = 0;     // ALLOC of a buffer whose memory was still live
  std::int64_t negative_heap = 0;    // heap went below zero (inconsistent sizes)
  std::int64_t unknown_kinds = 0;
  std::int64_t skipped_other_color = 0;  // events left out by the color filter
};

// Replays `traces` back to back as one sequence. When filter_color is true, events whose logical buffer
// has a color other than `color` are left out (used when several traces are walked together).
// With peak_range, the peak is the highest point (first one) among the events [first, last] instead.
ReplayResult replay_traces(const PlanIndex& index, std::span<const xla::HeapSimulatorTrace* const> traces,
                           bool filter_color, std::int64_t color,
                           std::optional<std::pair<std::int64_t, std::int64_t>> peak_range = std::nullopt);

// Heap peak of each trace replayed alone (same rules, nothing else recorded).
std::vector<std::int64_t> trace_peaks(const PlanIndex& index,
                                      std::span<const xla::HeapSimulatorTrace* const> traces);

}  // namespace oomscope::analysis::detail
