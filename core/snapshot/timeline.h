#pragma once
// The Active Memory Timeline of one device, derived exactly as memory_viz does
// (docs/snapshot-format.md section 3): allocs paired with frees by address, frees without an alloc and live
// blocks without one ("ghosts") counted as allocated from the start, replayed over the raw trace.

#include <cstdint>
#include <vector>

#include "core/snapshot/snapshot.h"

namespace oomscope::snapshot {

struct TimelineElement {
  std::uint64_t addr = 0;
  std::int64_t size = 0;    // requested bytes (the trace entry's size, or the block's requested_size)
  std::int64_t start = -1;  // raw trace index of the alloc; -1: allocated before the trace began
  std::int64_t end = -1;    // raw index of the free that closed it; -1: still live at the end
  FramesId frames = 0;
  bool ghost = false;  // a live block of the snapshot with no alloc in the trace
  bool live_at(std::int64_t index) const { return start <= index && (end < 0 || end > index); }
};

struct Timeline {
  std::int64_t device = 0;
  std::vector<TimelineElement> elements;
  std::int64_t initial_bytes = 0;    // Σ elements allocated from the start
  std::vector<std::int64_t> totals;  // active bytes after raw entry i
  std::int64_t peak_bytes = 0;
  std::int64_t peak_index = -1;  // first raw index at the peak; -1: the peak is the starting level
  std::int64_t final_bytes = 0;
  std::size_t ghosts = 0;
  std::int64_t ghost_bytes = 0;
  std::size_t unmatched_frees = 0;
  std::int64_t unmatched_free_bytes = 0;
  std::size_t never_freed = 0;       // allocs inside the trace still live at the end
  std::int64_t trace_only_peak = 0;  // running Σ(alloc − free_completed) from 0
  std::int64_t bytes_at(std::int64_t index) const {
    return index < 0 || totals.empty() ? initial_bytes
                                       : totals[static_cast<std::size_t>(std::min<std::int64_t>(
                                             index, static_cast<std::int64_t>(totals.size()) - 1))];
  }
};

Timeline active_memory_timeline(const Snapshot& snap, std::int64_t device);

// Elements live at a raw index (-1: before the first entry), largest first.
std::vector<std::uint32_t> live_elements(const Timeline& t, std::int64_t index);

// The device whose timeline memory_viz shows first: the longest trace, else the first with segments.
std::int64_t default_device(const Snapshot& snap);

}  // namespace oomscope::snapshot
