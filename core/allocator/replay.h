#pragma once
// Replaying one device's allocation trace through the caching allocator model: the program's requests
// (alloc, free_requested, free_completed, an inferred empty_cache(), a recorded oom) are the input; the
// model decides where blocks go and which segments it allocates, frees, maps and unmaps. With the
// snapshot's own settings, the validation compares the model's segment events, block addresses and final
// segments with what the real allocator recorded.

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/allocator/allocator_config.h"
#include "core/allocator/caching_allocator.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

struct ReplayOptions {
  AllocatorConfig config;
  std::uint64_t capacity = kNoLimit;  // the most the allocator may reserve; kNoLimit: as recorded
  std::int64_t device = 0;
  bool validate = false;    // compare with the recording (meaningful under the recorded settings)
  bool keep_curve = false;  // reserved and allocated bytes after every entry that changed them
  // Without a capacity, a recorded oom entry's request runs under the capacity the entry implies (reserved
  // after the retry's release plus device_free), so it fails as it did; false: it runs unlimited too.
  bool recorded_oom_capacity = true;
};

// Reserved, allocated (blocks as rounded) and requested bytes after trace entry `index` (-1: before the
// first entry).
struct CurvePoint {
  std::int64_t index = -1;
  std::uint64_t reserved = 0, allocated = 0, requested = 0;
};

struct OomReport {
  std::int64_t trace_index = -1;
  std::int64_t time_us = -1;
  snapshot::FramesId frames = 0;
  bool recorded = false;          // the trace itself has an oom entry here
  std::uint64_t device_free = 0;  // recorded: what CUDA still had free
  OomDetail detail;
};

struct Divergence {
  std::int64_t trace_index = -1;  // the recorded entry where model and recording first disagree
  std::string what;               // one sentence
};

struct Validation {
  std::vector<std::uint64_t> segment_allocs_recorded, segment_allocs_replayed;  // sizes, in order
  std::size_t segment_events_recorded = 0, segment_events_replayed = 0, segment_events_matched = 0;
  std::size_t allocs = 0, allocs_at_recorded_address = 0;
  std::vector<std::uint64_t> final_segments_recorded, final_segments_replayed;  // sizes, address order
  bool final_layout_matched = false;  // same segments, and the same blocks (size, state) in each
  bool checked = false;               // the trace held an alloc or a segment event to check the model against
  bool matched = false;               // checked, and no divergence
  std::optional<Divergence> first_divergence;
  std::vector<std::string> unexplained;  // what the recording did that the model cannot account for
};

struct ReplayResult {
  AllocatorConfig config;
  std::uint64_t capacity = kNoLimit;
  std::size_t entries = 0, replayed = 0;  // entries in the trace, entries replayed (up to the first OOM)
  std::uint64_t start_reserved = 0, start_allocated = 0;
  std::uint64_t peak_reserved = 0, peak_allocated = 0, peak_requested = 0;
  std::int64_t peak_reserved_index = -1;  // the entry after which reserved first reached its peak
  std::uint64_t final_reserved = 0;
  std::optional<OomReport> first_oom;
  // A recorded oom entry's capacity: reserved after the retry released what it could, plus device_free.
  std::optional<std::uint64_t> oom_capacity;
  std::optional<Validation> validation;
  std::vector<CurvePoint> curve;  // keep_curve: the start (index -1), then each entry that changed a figure
  std::vector<std::string> notes;
};

// Throws oomscope::Cancelled when `stop` is requested (checked every 4096 entries).
ReplayResult replay(const snapshot::Snapshot& snap, const ReplayOptions& options,
                    const std::stop_token& stop = {});

}  // namespace oomscope::allocator
