#pragma once
// Internal to the plan analysis (not for other folders): the heap-simulator replay, buffer description
// (shape, role, Python line) and donation, each implemented in its own plan_*.cpp.
//
// Replay follows XProf's memory-viewer rules (docs/capture-format.md section 6): reference counts live on the
// root canonical buffer, SHARE_WITH links a buffer to its canonical and may revive a canonical that was
// already freed.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_index.h"

namespace oomscope::analysis::detail {

// ---- replay (plan_replay.cpp) ----

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

// ---- buffers (plan_roles.cpp) ----

// Role from a JAX name stack alone: Backward for "transpose(", ForwardKept for "jvp(", else Other.
BufferRole role_from_op_name(std::string_view op_name);

// Source line of an instruction: OpMetadata.source_file/source_line when source_file is set, else the
// innermost frame of the stack-frame index reached from stack_frame_id (ids are 1-based, 0 = none).
SourceLocation source_of(const xla::HloInstructionProto& instruction,
                         const xla::StackFrameIndexProto& frames);

// Fills shape, element type, defining instruction, op_name, source and the heap role of a logical buffer.
// The role is set for a temp buffer; callers override it for indefinite allocations.
void describe_buffer(const PlanIndex& index, std::int32_t slot, PlanBuffer& out);

// ---- phases and patterns (plan_phases.cpp, plan_patterns.cpp) ----

// Finds the backward's first/last event, the peak's phase and each phase's peak (needs the curve and
// peak_event_index), and turns forward buffers at the peak that are freed before the backward starts
// into ForwardTransient. Call after the live-at-peak buffers and the curve are filled, before role totals.
void analyze_phases(const PlanIndex& index, std::span<const xla::HeapSimulatorTrace::Event* const> events,
                    PlanAnalysis& out);

// Split-K partial sums, convolution outputs held twice and host prefetches among the peak's buffers.
void find_patterns(const PlanIndex& index, PlanAnalysis& out);

// Allocation totals of every memory space other than `color` (host offload is memory space 5).
void add_other_memory_spaces(const PlanIndex& index, std::int64_t color, PlanAnalysis& out);

// ---- unpadded sizes and memory-space buffers (plan_unpadded.cpp) ----

// XProf's unpadded bytes of a shape (PlanBuffer::unpadded_bytes); -1 for an unknown element type.
std::int64_t unpadded_bytes(const xla::ShapeProto& shape);
// The unpadded size of the logical buffer in `slot` (its element of the defining instruction's shape).
std::int64_t unpadded_bytes_of(const PlanIndex& index, std::int32_t slot);
// Fills PlanBuffer::unpadded_bytes of the buffers live at the peak and the unpadded peak figures. Call
// after live_at_peak is filled.
void add_unpadded_sizes(const PlanIndex& index, PlanAnalysis& out);
// Fills MemorySpaceTotals::buffers of every memory space in out.other_memory_spaces.
void add_memory_space_buffers(const PlanIndex& index, PlanAnalysis& out);

// ---- donation (plan_donation.cpp): which parameters are donated (aliased with an output), the
// evidence for it, and which could be (an un-aliased output has the same dtype and dimensions) ----

DonationSummary analyze_donation(const PlanIndex& index, std::int64_t color);

}  // namespace oomscope::analysis::detail
