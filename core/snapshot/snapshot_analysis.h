#pragma once
// Everything `report` says about a snapshot: per device the Active Memory Timeline and its peak, the
// allocations live at the peak (largest first, with frames and a category), the OOM point and the
// allocator state there, and diagnosis lines in the capture report's style (measured / read / derived,
// each with fixes and savings).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"
#include "core/snapshot/allocator_state.h"
#include "core/snapshot/annotation_windows.h"
#include "core/snapshot/categories.h"
#include "core/snapshot/categoriser.h"
#include "core/snapshot/entry_context.h"
#include "core/snapshot/pool_summary.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/timeline.h"

namespace oomscope::snapshot {

struct PeakAllocation {
  std::uint32_t element = 0;  // into Timeline::elements
  std::int64_t bytes = 0;
  std::uint64_t addr = 0;
  std::int64_t alloc_index = -1;  // -1: before the trace (ghost or unmatched free)
  bool ghost = false;
  FramesId frames = 0;
  Categorised category;
  std::string where;  // user_frame()
  EntryContext context;
};

struct CategoryTotal {
  Category category = Category::Unknown;
  std::int64_t bytes = 0;
  std::size_t count = 0;
  std::string rule;  // the rule of the largest allocation in it
  std::string name;  // Custom: the user rule's category name
  std::string label() const { return category == Category::Custom ? name : std::string(to_string(category)); }
};

struct OomPoint {
  std::int64_t index = -1;       // raw trace index of the oom entry
  std::int64_t requested = 0;    // rounded request that failed
  std::int64_t device_free = 0;  // cudaMemGetInfo free bytes
  std::int64_t time_us = -1;
  FramesId frames = 0;
};

struct DeviceAnalysis {
  std::int64_t device = 0;
  std::size_t trace_entries = 0;
  std::int64_t first_time_us = -1, last_time_us = -1;
  Timeline timeline;
  std::vector<PeakAllocation> at_peak;            // live at the peak, largest first
  std::vector<CategoryTotal> categories_at_peak;  // largest first
  std::optional<OomPoint> oom;
  AllocatorState state;            // at the OOM entry when there is one, else the snapshot itself
  std::vector<PoolSummary> pools;  // state by segment_pool_id
  std::int64_t reserved_peak = 0;  // Active Cached Segment Timeline maximum (docs/snapshot-format.md, 3)
  AnnotationWindows windows;       // external_annotations on this device
  std::size_t segment_events = 0;  // segment_alloc / free / map / unmap entries
};

// What the file says about how it was recorded (_record_memory_history's options), so the report can say
// what cannot be known from it.
struct RecordingFacts {
  bool history_recorded = false;  // some device trace has entries
  bool single_entry_trace =
      false;  // every non-empty trace holds 1 entry (max_entries=1: enabled='state', 2.0)
  bool block_frames = false, trace_frames = false;  // any stack recorded on blocks / trace entries
  std::size_t compile_context_entries = 0, compiled_entries = 0;  // with the key / inside a compiled region
  std::size_t user_metadata_entries = 0, forward_frames_entries = 0, annotate_entries = 0;
  std::size_t fx_frames = 0;            // frames naming an FX node
  std::size_t pending_free_blocks = 0;  // in the snapshot's segments
  std::int64_t pending_free_bytes = 0;
  std::size_t expandable_segments = 0, private_pool_segments = 0;
};

struct SnapshotReport {
  std::string path;
  std::uint64_t file_size = 0;
  SnapshotFormat format = SnapshotFormat::V2_1;
  std::size_t segments = 0, blocks = 0, active_blocks = 0;
  std::int64_t reserved = 0, allocated = 0, requested_active = 0, inactive_bytes = 0;
  std::size_t trace_entries = 0;
  std::size_t frames = 0;
  std::vector<DeviceAnalysis> devices;
  RecordingFacts recording;
  std::vector<analysis::DiagnosisLine> diagnosis;
  std::vector<std::string> notes;
  std::int64_t peak_bytes() const;  // max over devices
};

SnapshotReport analyse_snapshot(const Snapshot& snap, std::size_t top = 25);
// The same with a user's category rules tried before the built-in ones (null: none).
SnapshotReport analyse_snapshot(const Snapshot& snap, std::size_t top, const CategoryRules* rules);

// Diagnosis rules (snapshot_diagnosis.cpp), from the figures above.
std::vector<analysis::DiagnosisLine> diagnose_snapshot(const Snapshot& snap, const SnapshotReport& r);

}  // namespace oomscope::snapshot
