#pragma once
// Results of the RUNTIME analysis: what the allocator events of a capture say happened (docs/report-rules.md,
// "Runtime"). Plain structs, no Qt. Every byte figure is an exact int64 count of bytes.
//
// Provenance, as the report labels it: figures copied from an event's stats are "read" (capacity, bytes in
// use at an event); figures obtained by pairing, counting or differencing events are "measured" (growth per
// execution, live-at-end, retry waits); ratios against the plan are "derived".

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::analysis {

struct RuntimeSeriesPoint {
  std::int64_t time_ps = 0;
  std::int64_t bytes_in_use = 0;
  bool operator==(const RuntimeSeriesPoint&) const = default;
};

// The allocator's bytes_reserved stat at one event (XProf's "reserved" series).
struct ReservedSeriesPoint {
  std::int64_t time_ps = 0;
  std::int64_t bytes_reserved = 0;
  bool operator==(const ReservedSeriesPoint&) const = default;
};

struct AllocatorRuntime {
  std::uint32_t index = 0;  // index into Capture::allocators()
  std::string name;
  std::int64_t allocations = 0;
  std::int64_t deallocations = 0;
  // bytes_allocated + bytes_available + bytes_reserved, the largest seen: the pool's limit (read).
  std::int64_t capacity_bytes = 0;
  std::int64_t peak_bytes_in_use = 0;  // largest bytes_allocated in the capture (read)
  std::int64_t peak_time_ps = 0;
  std::int64_t lifetime_peak_bytes =
      0;  // the allocator's own peak_bytes_in_use stat; may predate the capture
  std::int64_t bytes_in_use_at_start = 0;  // before the first event (derived from the first event)
  std::int64_t bytes_in_use_at_end = 0;    // after the last event (read)
  // Pairing by addr (measured).
  std::int64_t paired = 0;           // allocations with a matching free
  std::int64_t unmatched_frees = 0;  // frees of a chunk allocated before the capture started
  std::int64_t unmatched_free_bytes = 0;
  std::int64_t live_at_end = 0;  // allocations never freed inside the capture
  std::int64_t live_at_end_bytes = 0;
  std::int64_t reused_without_free = 0;  // an allocation at an addr still live (a lost free event)
  std::int64_t first_time_ps = 0;
  std::int64_t last_time_ps = 0;
  // Bytes in use over time, downsampled for charts (min/max kept per bucket, the peak kept exactly).
  std::vector<RuntimeSeriesPoint> series;
  // Bytes reserved over time (read), from the events that carry the bytes_reserved stat, downsampled the
  // same way; empty when none carries it. Its peak, first event with it, and how many events carry it.
  std::vector<ReservedSeriesPoint> reserved_series;
  std::int64_t reserved_events = 0;
  std::int64_t peak_bytes_reserved = 0;
  std::int64_t peak_reserved_time_ps = 0;
};

// One execution of a module, seen from the host.
struct RuntimeExecution {
  std::string module;                       // module name ("" when it cannot be told)
  std::string label;                        // module name, with "(program id)" when several modules share it
  std::optional<std::uint64_t> program_id;  // from device events or the span; nullopt when unknown
  bool module_from_pjit = false;            // module name guessed as "jit_<function>" from PjitFunction(...)
  bool program_id_inferred = false;         // program id chosen among modules of the same name
  // True when program_id came from the kernels it launched (host launch -> program_id, directly or through
  // the device event of the same correlation_id); false = matched to its module by name and order.
  bool matched_by_program_id = false;
  // Launches of several programs in its window on devices it cannot be told apart from (its own device
  // unknown): the program ids, sorted; the execution is then matched by name.
  std::vector<std::uint64_t> ambiguous_programs;
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::uint32_t plane = 0;
  std::uint32_t line = 0;
  bool has_module_span = false;  // the "<module>:XLA GPU module" span exists (thunks enqueued)
  // Whether a device event of this program started in [start, next execution on the line). nullopt when the
  // capture has no device events tagged with programs at all (CUPTI off), so nothing can be said.
  std::optional<bool> launched;
  std::optional<std::uint32_t> allocator;  // allocator of the first allocation inside the span
  std::int64_t bytes_in_use_at_start = 0;  // of that allocator (read from the last event before start)
  std::int64_t retry_wait_ps = 0;          // AllocatorRetry time inside the span (measured)
  int number = 0;  // 1-based, among executions of the same module (name and program id) on the same line
};

// Live bytes at one moment grouped by the host event that allocated them.
struct LiveGroup {
  std::string
      label;  // "outputs of jit_step execution 3", "DevicePut", "allocated before the capture started"
  std::int64_t bytes = 0;
  std::int64_t count = 0;    // allocations (0 for the before-capture residual)
  std::int64_t largest = 0;  // largest single allocation in the group
  bool before_capture = false;
  std::int64_t requested_bytes = 0;  // what its allocations asked for (bytes is what the chunks hold)
  std::string module = {};           // the execution's label when outputs of an execution, else ""
};

struct NameCount {
  std::string name;
  std::int64_t count = 0;
};

struct RetrySummary {
  std::int64_t count = 0;
  std::int64_t longest_ps = 0;
  std::int64_t total_ps = 0;
  std::int64_t longest_time_ps = 0;  // start of the longest wait
};

// How the analysed module was chosen.
enum class ModuleChoice : std::uint8_t {
  None,              // the capture has no modules
  LastNeverStarted,  // its last execution never launched a kernel (the spec's first rule)
  LargestExecuted,   // the largest module that executed
  LargestModule,     // no module executed: the largest module
  UserSelected,      // --module
};
inline constexpr EnumName<ModuleChoice> kModuleChoiceNames[] = {
    {ModuleChoice::None, "none"},
    {ModuleChoice::LastNeverStarted, "last execution never started"},
    {ModuleChoice::LargestExecuted, "largest executed module"},
    {ModuleChoice::LargestModule, "largest module (none executed)"},
    {ModuleChoice::UserSelected, "selected by the user"}};
static_assert(names_every_value(kModuleChoiceNames, ModuleChoice::UserSelected));
const char* to_string(ModuleChoice choice) noexcept;

struct ModuleRuntime {
  std::string module;
  std::optional<std::uint64_t> program_id;
  std::vector<RuntimeExecution> executions;  // on the module's main allocator, by time
  std::optional<std::uint32_t> allocator;    // the allocator its executions allocate from
  // The module ran on several devices: each one's allocator and bytes in use at the start of its first and
  // last execution (read); `allocator` is the one with the most at the last. Empty for a single device.
  struct Device {
    std::uint32_t allocator = 0;
    std::int64_t bytes_in_use_at_first_start = 0;
    std::int64_t bytes_in_use_at_last_start = 0;
  };
  std::vector<Device> devices;
  // Growth of bytes in use at execution start (measured): (last - first) / (n - 1), for n >= 2.
  std::optional<std::int64_t> growth_per_execution;
  std::vector<std::int64_t> growth_steps;  // start[i+1] - start[i]
  bool growth_consistent = false;          // n >= 3 and every step grew
  std::int64_t never_launched = 0;         // executions with launched == false
  std::int64_t launch_unknown = 0;         // executions with launched == nullopt
  bool last_never_launched = false;
  // Host events between the last two executions: [end of the one before last, start of the last).
  std::vector<NameCount> host_events_between;  // the most frequent names, `top` at most
  std::int64_t host_events_between_total = 0;
  std::int64_t host_event_names_between = 0;  // distinct names, before `top` cut the list
  std::int64_t between_start_ps = 0;
  std::int64_t between_end_ps = 0;
  // What was live on the allocator at the start of the last execution, grouped, largest first.
  std::vector<LiveGroup> live_at_last_start;   // `top` at most
  std::int64_t live_at_last_start_groups = 0;  // groups before `top` cut the list
  std::int64_t live_at_last_start_bytes = 0;   // bytes in use then (read)
};

struct RuntimeAnalysis {
  std::vector<AllocatorRuntime> allocators;
  RetrySummary retries;
  std::int64_t executions_total = 0;
  std::vector<std::int64_t> executions_per_module;     // index = the ModuleRef given, measured
  std::vector<std::int64_t> executions_by_program_id;  // of those, matched by program id (the rest: by name)
  std::vector<std::int64_t> executions_ambiguous;      // of those, whose launches named several programs
  bool has_device_program_events = false;
  ModuleChoice choice = ModuleChoice::None;
  // The module analysed when none is chosen (index into the modules given) and why: the default chooser
  // runs even when the options name a module, so a caller learns the default without a second analysis.
  std::optional<std::size_t> default_module;
  ModuleChoice default_choice = ModuleChoice::None;
  std::optional<ModuleRuntime> module;  // the analysed module (absent when the capture has none)
  // Every module's executions in the whole capture, by start, also under a time window (their numbers and
  // what was live at their start are judged on the whole capture): the plan timeline names live memory with
  // them instead of finding them again. Shared: a re-scope of the same capture holds the same vector
  // (RuntimeOptions::executions). Null before an analysis.
  std::shared_ptr<const std::vector<RuntimeExecution>> executions;
  std::span<const RuntimeExecution> all_executions() const {
    return executions ? std::span<const RuntimeExecution>(*executions) : std::span<const RuntimeExecution>();
  }
  std::vector<std::string> notes;  // caveats met while analysing, one sentence each
  // The selection the figures above describe (ps of the capture's clock); nullopt = the whole capture.
  std::optional<std::pair<std::int64_t, std::int64_t>> time_window;
};

}  // namespace oomscope::analysis
