#pragma once
// A PyTorch CUDA caching-allocator snapshot (torch.cuda.memory._snapshot() / _dump_snapshot(), any
// version from 2.0 on; docs/snapshot-format.md section 2): segments with their blocks, the per-device
// trace ring buffers, the allocator settings and annotations. Immutable once read. Stack frames are
// stored once and shared: a block or entry holds a FramesId into frame_lists.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::snapshot {

struct Frame {
  std::string filename;
  std::string name;
  std::int64_t line = 0;
};

// _snapshot(augment_with_fx_traces=True), newest: the FX node a frame of generated code belongs to and the
// model source it was traced from. Kept beside the frames (a frame with these keys is a frame of its own).
struct FrameFx {
  std::uint32_t frame = 0;  // index into Snapshot::frames
  std::string node_op, node_name, original_trace;
};

using FramesId = std::uint32_t;  // index into Snapshot::frame_lists; 0 = no frames

enum class BlockState : std::uint8_t { ActiveAllocated, ActivePendingFree, Inactive };
inline constexpr EnumName<BlockState> kBlockStateNames[] = {
    {BlockState::ActiveAllocated, "active_allocated"},
    {BlockState::ActivePendingFree, "active_pending_free"},
    {BlockState::Inactive, "inactive"},
    {BlockState::ActivePendingFree, "active_awaiting_free"}};
static_assert(names_every_value(kBlockStateNames, BlockState::Inactive));
const char* to_string(BlockState s) noexcept;

struct HistoryEntry {  // 2.0 format: one earlier use of the block, newest first
  std::uint64_t addr = 0;
  std::int64_t real_size = 0;
  FramesId frames = 0;
};

struct Block {
  std::uint64_t address = 0;        // stored (2.1+) or segment address + earlier blocks' sizes (2.0)
  std::int64_t size = 0;            // rounded
  std::int64_t requested_size = 0;  // as read; stale for inactive blocks
  BlockState state = BlockState::Inactive;
  FramesId frames = 0;                                 // block frames, or history[0].frames for 2.0 blocks
  std::uint32_t history_begin = 0, history_count = 0;  // into Snapshot::history (2.0)
  std::uint32_t segment = 0;
  bool active() const { return state != BlockState::Inactive; }
  // What memory_viz uses: requested_size, else history[0].real_size, else size.
  std::int64_t effective_requested = 0;
};

struct Segment {
  std::int64_t device = 0;
  std::uint64_t address = 0;
  std::int64_t total_size = 0;
  std::int64_t allocated_size = 0;
  std::int64_t active_size = 0;
  std::int64_t requested_size = 0;
  std::int64_t stream = 0;
  bool large = true;  // segment_type 'large' / 'small'
  bool is_expandable = false;
  std::pair<std::int64_t, std::int64_t> pool_id{0, 0};
  FramesId frames = 0;
  std::uint32_t first_block = 0, block_count = 0;
};

enum class Action : std::uint8_t {
  Alloc,
  FreeRequested,
  FreeCompleted,
  SegmentAlloc,
  SegmentFree,
  SegmentMap,
  SegmentUnmap,
  Snapshot,
  Oom,
  Annotate,
  Other
};
inline constexpr EnumName<Action> kActionNames[] = {{Action::Alloc, "alloc"},
                                                    {Action::FreeRequested, "free_requested"},
                                                    {Action::FreeCompleted, "free_completed"},
                                                    {Action::SegmentAlloc, "segment_alloc"},
                                                    {Action::SegmentFree, "segment_free"},
                                                    {Action::SegmentMap, "segment_map"},
                                                    {Action::SegmentUnmap, "segment_unmap"},
                                                    {Action::Snapshot, "snapshot"},
                                                    {Action::Oom, "oom"},
                                                    {Action::Annotate, "annotate"},
                                                    {Action::Other, "other"}};
static_assert(names_every_value(kActionNames, Action::Other));
const char* to_string(Action a) noexcept;  // the file's spelling ("free_requested")

struct TraceEntry {
  std::uint64_t addr = 0;  // for Oom: the device_free figure (the file replaces addr by it)
  std::int64_t size = 0;
  std::int64_t time_us = -1;  // -1: not recorded (2.0/2.1)
  FramesId frames = 0;
  std::uint16_t stream = 0;  // index into Snapshot::streams (0 is the default stream)
  Action action = Action::Other;
};
static_assert(sizeof(TraceEntry) == 32, "a trace entry stays 32 bytes: big snapshots hold millions");

using TextId = std::uint32_t;  // index into Snapshot::texts; 0 = no text

// What a trace entry carries beyond its 32-byte record, kept only for the entries that carry something:
// a compile_context other than 'N/A', a user_metadata string (_set_memory_metadata, or an 'annotate'
// entry's annotation), forward_frames (the forward stack of a backward allocation). The strings are
// interned (a trainer sets one metadata string for many allocations): 20 bytes an entry.
struct EntryExtra {
  std::uint32_t device = 0, index = 0;  // device_traces[device][index]
  TextId compile_context = 0, user_metadata = 0;
  FramesId forward_frames = 0;
};

// host_segments / host_traces (pinned host memory, newest PyTorch with record_pinned_host_memory=True),
// read as segment and trace-entry dicts of the device lists' shape.
struct HostMemory {
  bool present = false;  // the file has either key
  std::size_t segments = 0, blocks = 0, active_blocks = 0, trace_entries = 0;
  std::size_t unreadable = 0;                // items that are not dicts of that shape
  std::int64_t reserved = 0, allocated = 0;  // Σ total_size, Σ allocated_size
};

struct Annotation {
  std::string name, stage;  // "Optimizer.zero_grad#SGD.zero_grad", "START"
  std::int64_t device = 0;
  std::int64_t time_us = -1;
};

enum class SnapshotFormat : std::uint8_t {
  V2_0,          // blocks with history, no block addresses
  V2_1,          // block addresses and frames, pool ids
  V2_3,          // + allocator_settings
  SegmentsOnly,  // a bare list of segments (torch.cuda.memory_snapshot())
};
const char* describe(SnapshotFormat f) noexcept;

struct Snapshot {
  std::string path;
  std::uint64_t file_size = 0;
  int protocol = 0;
  SnapshotFormat format = SnapshotFormat::V2_1;
  std::vector<Segment> segments;
  std::vector<Block> blocks;
  std::vector<HistoryEntry> history;
  std::vector<std::vector<TraceEntry>> device_traces;  // one per device, oldest first
  std::vector<Frame> frames;
  std::vector<FrameFx> frame_fx;                        // ascending frame index
  std::vector<std::vector<std::uint32_t>> frame_lists;  // [0] is the empty list; innermost frame first
  std::vector<std::pair<std::string, std::string>> allocator_settings;  // key, value as text
  bool has_allocator_settings = false;
  bool expandable_segments = false;
  std::vector<Annotation> annotations;
  std::vector<EntryExtra> entry_extras;     // in (device, index) order
  std::vector<std::string> texts{""};       // the interned strings of entry_extras, [0] = ""
  std::size_t compile_context_entries = 0;  // trace entries with a compile_context key, 'N/A' included
  HostMemory host;
  std::vector<std::int64_t> streams{0};  // the cudaStream_t values trace entries refer to, [0] = 0
  std::vector<std::string> notes;        // oddities found while reading (never silent)

  std::int64_t reserved_bytes() const;          // Σ total_size
  std::int64_t allocated_bytes() const;         // Σ allocated_size
  std::int64_t requested_active_bytes() const;  // Σ requested of active_allocated blocks
  std::size_t trace_entries() const;
  const std::vector<std::uint32_t>& frames_of(FramesId id) const {
    return frame_lists[id < frame_lists.size() ? id : 0];
  }
  const std::string& text(TextId id) const { return texts[id < texts.size() ? id : 0]; }
  // The extras of trace entry `index` of `device` (binary search), or null.
  const EntryExtra* extra_of(std::int64_t device, std::int64_t index) const;
  // Devices with segments or trace entries, ascending.
  std::vector<std::int64_t> devices() const;
};

}  // namespace oomscope::snapshot
