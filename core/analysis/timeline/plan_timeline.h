#pragma once
// The plan of the analysed module placed on the capture's wall clock, once per execution, next to what the
// allocator really held (docs/report-rules.md, "Plan vs runtime").
//
// Each heap-simulator trace position is placed at the time its HLO instruction ran on the device: the
// device events of the execution name their instruction (stat hlo_op). They are found on the device plane of
// the module's allocator (GPU_<n>_bfc -> /device:GPU:<n>; without one, the plane with most of them) through
// the correlation ids of the driver-API launches inside the host span (on any thread), else by program and
// time between the execution's start and the next one's. Positions
// whose instruction launched no kernel (parameters, bitcasts, tuples, while loops) are interpolated between
// the nearest timed positions. An execution without such device events gets the plan stretched evenly over
// its host span ("stretched"). Times never go backwards in program order (kernels of several streams can
// finish out of order; the later position keeps the earlier time).
//
// Per execution: the planned peak (bytes, and the time its position maps to), the allocator's own peak in
// the same span (read), and the difference explained by what was live when the execution started, grouped
// like the runtime section's live-at-start groups.
//
// Plain structs, no Qt. map_plan_to_time() is a pure function of its input and checks the stop token between
// executions (throws oomscope::Cancelled).

#include <cstdint>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/plan/plan.h"
#include "core/analysis/runtime/runtime_attribution.h"
#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"
#include "core/util/enum_names.h"
#include "core/util/progress.h"

namespace oomscope::analysis {

struct HostReport;

enum class TimeMapping : std::uint8_t {
  Kernels,  // positions placed at the start of their instruction's first kernel (measured), gaps interpolated
  Stretched,  // no device event named an instruction of this execution: the plan spread over the host span
};
inline constexpr EnumName<TimeMapping> kTimeMappingNames[] = {{TimeMapping::Kernels, "kernels"},
                                                              {TimeMapping::Stretched, "stretched"}};
static_assert(names_every_value(kTimeMappingNames, TimeMapping::Stretched));
const char* to_string(TimeMapping mapping) noexcept;

// A trace position and the time it is placed at.
struct TimedPosition {
  std::int64_t position = 0;
  std::int64_t time_ps = 0;
  bool operator==(const TimedPosition&) const = default;
};

// Why live memory was there when the execution started, summed from the live-at-start groups.
enum class LiveKind : std::uint8_t { EarlierOutputs, HostCopies, BeforeCapture, Other };
inline constexpr EnumName<LiveKind> kLiveKindNames[] = {{LiveKind::EarlierOutputs, "earlier outputs"},
                                                        {LiveKind::HostCopies, "host copies"},
                                                        {LiveKind::BeforeCapture, "before the capture"},
                                                        {LiveKind::Other, "other"}};
static_assert(names_every_value(kLiveKindNames, LiveKind::Other));
const char* to_string(LiveKind kind) noexcept;
LiveKind live_kind(const LiveGroup& group);

struct ExecutionTimeline {
  int number = 0;             // RuntimeExecution::number
  std::int64_t start_ps = 0;  // host span start
  std::int64_t end_ps = 0;    // the later of the host span's end and its last kernel's end
  TimeMapping mapping = TimeMapping::Stretched;
  bool by_correlation = false;  // kernels found through the launches' correlation ids (else by time window)
  std::optional<std::uint32_t> device_plane;  // plane of the kernels used
  std::int64_t kernels = 0;                   // device events of this execution that name an instruction
  std::int64_t timed_instructions = 0;        // distinct trace instructions that ran a kernel
  std::int64_t untimed_instructions = 0;      // distinct trace instructions without one (interpolated)
  // Sorted by position, times non-decreasing; positions between anchors are interpolated linearly. Always
  // holds the first and the last trace position.
  std::vector<TimedPosition> anchors;

  std::int64_t planned_peak_bytes = 0;  // the plan's peak (derived; the same for every execution)
  std::int64_t planned_peak_time_ps = 0;
  std::optional<std::uint32_t> allocator;  // the allocator the runtime figures are read from
  std::int64_t in_use_at_start = 0;        // bytes in use just before the start (read)
  std::int64_t runtime_peak_bytes = 0;     // highest bytes in use in [start, end] (read)
  std::int64_t runtime_peak_time_ps = 0;
  std::int64_t reserved_at_peak = 0;            // bytes_reserved at that event (read; 0 on the GPU BFC)
  std::int64_t difference_bytes = 0;            // runtime peak - planned peak
  std::int64_t plan_parameters_bytes = 0;       // the plan's entry parameters, already part of its peak
  std::vector<LiveGroup> live_at_start;         // what was live at the start, grouped, largest first
  bool grouped = false;                         // live_at_start was computed (see max_grouped)
  std::int64_t live_by_kind[4] = {0, 0, 0, 0};  // indexed by LiveKind
  // One line: "+1.20 GiB over the plan: live at start 1.50 GiB beyond its 300 MiB of parameters (earlier
  // outputs 1.00 GiB, host copies 500 MiB), during the execution -300 MiB".
  std::string explanation;

  // The time trace position p is placed at (clamped to the first/last position).
  std::int64_t time_at(std::int64_t position) const;
  // The last trace position placed at or before t (the first position when t is earlier).
  std::int64_t position_at(std::int64_t time_ps) const;
};

struct PlanTimeline {
  std::string module;
  std::uint64_t program_id = 0;
  std::int64_t positions = 0;                 // trace positions of the plan's curve
  std::vector<ExecutionTimeline> executions;  // by start time
  std::vector<std::string> notes;             // why something is missing, one sentence each
  // Indices into the memory events of the module's allocator, by time (for runtime_points()).
  std::vector<std::uint32_t> allocator_events;
  // Per block of kAllocatorBlock consecutive allocator_events (the last one shorter): the index into
  // allocator_events of its first lowest and its first highest bytes in use, so that runtime_points() at a
  // wide zoom reads a block that falls inside one bucket as two points (summarize_allocator_events()).
  static constexpr std::size_t kAllocatorBlock = 64;
  std::vector<std::uint32_t> allocator_block_low, allocator_block_high;
  std::optional<std::uint32_t> allocator;
};

struct PlanTimelineInput {
  const PlanAnalysis* plan = nullptr;                // null or without a curve: nothing to map
  std::span<const RuntimeExecution> executions;      // of the analysed module, by time
  std::span<const RuntimeExecution> all_executions;  // every module's (names the live groups)
  std::optional<std::uint32_t> allocator;            // the module's allocator
  std::optional<std::uint32_t> device_plane;         // its device's plane; nullopt = the busiest plane
  std::span<const capture::DeviceProgramEvent> device_events;  // sorted by time
  std::span<const capture::LaunchEvent> launches;              // sorted by time
  std::span<const std::string> strings;                        // Capture::strings()
  std::span<const capture::MemoryEvent> memory;                // sorted by time
  std::uint32_t host_plane = 0;
  const HostTimeline* host = nullptr;  // null: live groups are not named
  std::size_t top = 25;                // live groups kept per execution
  // Naming the live memory walks every live allocation and the host events around it (seconds on a 1 GB
  // capture): with more executions than this, only the last one gets live-at-start groups; a range
  // selection with fewer executions gets them all.
  std::size_t max_grouped = 200;
};

PlanTimeline map_plan_to_time(const PlanTimelineInput& in, ProgressSink& progress, std::stop_token stop = {});
// The plane of the device an allocator serves: GPU_<n>_bfc, TPU_<n> and device_<n> -> /device:GPU:<n> or
// /device:TPU:<n>. nullopt when the name has no ordinal or no such plane exists.
std::optional<std::uint32_t> device_plane_of(const capture::Capture& capture,
                                             std::string_view allocator_name);
// Over a capture and the report built from it (its plan, runtime module and allocator). The memory live at
// each start is named by the report's executions of every module, which are the whole capture's also under
// a time window (RuntimeAnalysis::executions).
PlanTimeline map_plan_to_time(const capture::Capture& capture, const HostReport& report,
                              ProgressSink& progress, std::stop_token stop = {});

// ---- what an instruction allocates (plan_timeline_buffers.cpp)
// -----------------------------------------------

struct DefinedBuffer {
  std::int64_t logical_buffer_id = -1;
  std::int64_t bytes = 0;  // LogicalBufferProto.size (read)
  std::string shape;       // "f32[8,1024]" ("" when the defining instruction is not in the module)
};
// The logical buffers of memory space `color` that `instruction` defines, largest first.
std::vector<DefinedBuffer> buffers_defined_by(const xla::HloProto& hlo, std::string_view instruction,
                                              std::int64_t color = 0);

// ---- points for charts (plan_timeline_points.cpp) --------------------------------------------------------

struct TimeBytes {
  std::int64_t time_ps = 0;
  std::int64_t bytes = 0;
  std::int64_t position = -1;  // planned points: the trace position; runtime points: -1
  bool operator==(const TimeBytes&) const = default;
};

// The planned curve (heap + indefinite bytes) of one execution inside [t0, t1], as steps: at most about
// 2 x buckets points (the lowest and the highest point of each time bucket, in time order), plus the
// planned peak exactly when it lies inside the window.
std::vector<TimeBytes> planned_points(const ExecutionTimeline& execution, const MemoryCurve& curve,
                                      std::int64_t peak_position, std::int64_t t0, std::int64_t t1,
                                      std::size_t buckets);

// Bytes in use of the module's allocator inside [t0, t1], min/max per time bucket, plus the level held at
// t0 (the last event before it) so the step starts at the window's edge. The same points whether or not the
// timeline's allocator events are summarized; with the summary, a frame costs about the buckets and the
// blocks in the window rather than its events.
std::vector<TimeBytes> runtime_points(const PlanTimeline& timeline,
                                      std::span<const capture::MemoryEvent> memory, std::int64_t t0,
                                      std::int64_t t1, std::size_t buckets);
// Fills allocator_block_low/high from allocator_events (map_plan_to_time does).
void summarize_allocator_events(PlanTimeline& timeline, std::span<const capture::MemoryEvent> memory);

// Spans (executions) for one frame of a chart of `pixels` pixels over [t0, t1]: those overlapping the
// window, clipped to it, each at least a pixel wide, and spans less than a pixel apart merged into one, so a
// frame has at most about pixels / 2 of them whatever the number of executions.
struct TimeSpan {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  bool operator==(const TimeSpan&) const = default;
};
std::vector<TimeSpan> visible_spans(std::span<const TimeSpan> spans, std::int64_t t0, std::int64_t t1,
                                    std::size_t pixels);

// The planned and the runtime peak markers of the executions in [t0, t1], at most one of each per column of
// (t1 - t0) / columns: where several executions' peaks fall in one column, the highest stands for them (the
// earliest of equals), so every column that holds a peak has its marker and none is dropped. An execution
// is in view when its span meets [t0, t1]; its marker's column is that of its peak time, clamped to the
// window. Runtime markers only for executions with an allocator.
struct PeakMarker {
  std::size_t execution = 0;  // index into the executions given
  std::int64_t time_ps = 0;
  std::int64_t bytes = -1;
  bool operator==(const PeakMarker&) const = default;
};
struct PeakMarkers {
  std::vector<PeakMarker> planned;  // by column (time, but for peaks outside the window)
  std::vector<PeakMarker> runtime;  // by column
  std::size_t executions = 0;       // executions in view
  bool thinned = false;             // some column held the peaks of more than one execution
};
PeakMarkers peak_markers(std::span<const ExecutionTimeline> executions, std::int64_t t0, std::int64_t t1,
                         std::size_t columns);

}  // namespace oomscope::analysis
