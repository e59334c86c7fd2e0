#pragma once
// The immutable capture model: what a .xplane.pb file holds, as oomscope sees it.
//
// A Capture is built once by read_capture() (reader.h) and never changes afterwards, so it can be shared
// between threads (the GUI hands std::shared_ptr<const Capture> to its models).
//
// Memory layout: the file stays memory-mapped for the life of the Capture. Every event is kept as a
// compact EventRecord (times, metadata id and the byte range of the event inside the mapping); its stats
// are decoded on demand by Capture::event_stats(). The events the analyses need (allocator events,
// AllocatorRetry waits, execution spans, device events tagged with a program) are decoded once, while
// reading, into the typed tables below.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/capture/cut_short.h"

namespace xla {
class HloProto;
}

namespace oomscope::capture {

class MappedFile;
struct CaptureInternals;  // reader bookkeeping (per-entry stat tables of split planes); capture_internals.h

// ---- generic XSpace view -------------------------------------------------------------------------

// A stat value, whatever its wire type. Strings given as ref_value are resolved to the referenced
// stat-metadata name when decoded, so callers never see a ref. Bytes values are views into the mapping.
struct StatValue {
  std::variant<std::monostate, std::int64_t, std::uint64_t, double, std::string, std::string_view> value;

  bool is_number() const;
  bool is_string() const;  // str_value or resolved ref_value
  // Numeric value as int64 (doubles truncated; uint64 above INT64_MAX saturates). nullopt if not a number.
  std::optional<std::int64_t> as_int() const;
  std::optional<std::uint64_t> as_uint() const;
  std::optional<double> as_double() const;
  // String value ("" if not a string). Numbers are not converted.
  std::string_view as_string() const;
  // Bytes value (empty if none). Valid while the Capture lives.
  std::string_view as_bytes() const;
};

struct Stat {
  std::string name;
  StatValue value;
};

// 20 bytes per event: the table of every event is the reader's largest (37.5 million records in a 1 GiB
// capture), so it holds only what locating, ordering, naming and nesting an event needs; the rest (stats,
// an aggregated event's num_occurrences) is decoded from the mapping on demand (Capture::event_stats).
//
// Packed, so read through the accessors:
// - start_ps: exact.
// - duration_ps: exact up to 2^38 ps (0.27 s), and beyond that when it is a whole number of ns, us or ms
//   below 2^38 of them (profilers record ns, so a real capture's durations are all exact). Any other
//   duration is rounded up to the next whole ns (us, ms: the smallest unit that holds it) and a negative one
//   reads as 0; duration_exact() is false then (the reader decodes such an event's own bytes for its tables).
// - metadata_id: the key into Plane::event_metadata, below 2^24; the reader renumbers metadata whose id
//   is outside [0, kMaxMetadataId] (as it renumbers clashing ids of split planes), and an event whose id
//   names no metadata and is out of that range gets kUnknownMetadata (event_name() "").
// - offset: where the XEvent message begins in the mapped file (files < 2 GiB); its length is read from
//   the mapping, just before it.
class EventRecord {
 public:
  static constexpr std::int64_t kMaxMetadataId = (std::int64_t{1} << 24) - 2;
  static constexpr std::int64_t kUnknownMetadata = kMaxMetadataId + 1;

  EventRecord() = default;
  EventRecord(std::int64_t start_ps, std::int64_t duration_ps, std::int64_t metadata_id,
              std::uint32_t offset = 0) {
    set_start_ps(start_ps);
    set_duration_ps(duration_ps);
    set_metadata_id(metadata_id);
    set_offset(offset);
  }

  std::int64_t start_ps() const {
    return static_cast<std::int64_t>(std::uint64_t{start_hi_} << 32 | start_lo_);
  }
  std::int64_t duration_ps() const {
    const std::uint64_t code = std::uint64_t{packed_hi_ & 0xffu} << 32 | packed_lo_;
    return code <= kExactPs ? static_cast<std::int64_t>(code) : long_duration_ps(code);
  }
  bool duration_exact() const { return (offset_ >> 31) == 0; }
  std::int64_t metadata_id() const { return static_cast<std::int64_t>(packed_hi_ >> 8); }
  std::uint32_t offset() const { return offset_ & kOffsetMask; }

  void set_start_ps(std::int64_t t) {
    const auto u = static_cast<std::uint64_t>(t);
    start_lo_ = static_cast<std::uint32_t>(u);
    start_hi_ = static_cast<std::uint32_t>(u >> 32);
  }
  void set_duration_ps(std::int64_t d) {
    if (d < 0 || d > kExactPs) return set_long_duration_ps(d);
    packed_lo_ = static_cast<std::uint32_t>(d);
    packed_hi_ = (packed_hi_ & ~0xffu) | static_cast<std::uint32_t>(d >> 32);
    offset_ &= kOffsetMask;
  }
  // id in [0, kUnknownMetadata]; anything else is stored as kUnknownMetadata.
  void set_metadata_id(std::int64_t id) {
    const auto v = static_cast<std::uint32_t>(id >= 0 && id <= kUnknownMetadata ? id : kUnknownMetadata);
    packed_hi_ = (packed_hi_ & 0xffu) | v << 8;
  }
  void set_offset(std::uint32_t offset) { offset_ = (offset_ & ~kOffsetMask) | (offset & kOffsetMask); }

 private:
  static constexpr std::uint32_t kOffsetMask = 0x7fffffffu;
  static constexpr std::int64_t kExactPs = (std::int64_t{1} << 38) - 1;  // held as such, in ps
  // Durations over kExactPs (or negative): the code names a unit (bits 38-39: ps, ns, us, ms) and a count.
  static std::int64_t long_duration_ps(std::uint64_t code);
  void set_long_duration_ps(std::int64_t d);
  std::uint32_t start_lo_ = 0, start_hi_ = 0;
  std::uint32_t offset_ = 0;     // bits 0-30: the offset; bit 31: the duration is not exact
  std::uint32_t packed_lo_ = 0;  // duration code bits 0-31
  std::uint32_t packed_hi_ = 0;  // bits 0-7: duration code bits 32-39; bits 8-31: metadata id
};
static_assert(sizeof(EventRecord) == 20);

struct Line {
  std::int64_t id = 0;
  std::int64_t display_id = 0;
  std::string name;
  std::string display_name;
  std::int64_t timestamp_ns = 0;
  std::int64_t duration_ps = 0;
  std::vector<EventRecord> events;  // sorted by start time (stable: file order among equal times)
};

struct EventMetadata {
  std::int64_t id = 0;
  std::string name;
  std::string display_name;
  std::vector<Stat> stats;  // decoded; bytes stats (e.g. the Hlo Proto) stay views into the mapping
};

struct Plane {
  std::int64_t id = 0;
  std::string name;
  std::vector<Line> lines;
  std::map<std::int64_t, EventMetadata> event_metadata;
  std::map<std::int64_t, std::string> stat_metadata;  // id -> name
  std::vector<Stat> stats;  // plane-level stats (device capabilities, profiler metadata)

  std::size_t event_count() const;
  // Name of an event-metadata id ("" when unknown).
  std::string_view event_name(std::int64_t metadata_id) const;
  const Stat* find_stat(std::string_view name) const;
};

// ---- the memory plan (from /host:metadata) -------------------------------------------------------

// Totals of one module's buffer assignment for memory space (color) 0, following
// docs/capture-format.md section 6 (XProf's allocation categories).
struct PlanTotals {
  std::int64_t parameters_bytes = 0;  // sum of entry-parameter allocations
  std::int64_t donated_bytes = 0;     // parameters aliased with an output
  std::int64_t outputs_bytes = 0;     // maybe_live_out allocations that are not parameters
  std::int64_t temp_bytes = 0;        // allocations that are none of param/output/thread-local/constant
  std::int64_t constants_bytes = 0;
  std::int64_t thread_local_bytes = 0;
  std::int64_t total_allocation_bytes = 0;  // all allocations of color 0
  int allocation_count = 0;
  int heap_trace_count = 0;
  int parameter_count = 0;  // entry-parameter allocations
  int donated_count = 0;    // of which donated
  // Parameters where the allocation flags (maybe_live_out / is_parameter_aliased_with_output) and the
  // module's input_output_alias disagree about donation; 0 in a consistent plan.
  int donation_disagreements = 0;
};

struct Module {
  std::string name;  // HloModuleProto.name, e.g. "jit_train_step"
  std::uint64_t program_id = 0;
  std::string metadata_name;  // event-metadata name, e.g. "jit_train_step(42)"
  std::size_t hlo_bytes = 0;  // size of the serialized HloProto
  bool has_buffer_assignment = false;
  PlanTotals totals;
  std::shared_ptr<const xla::HloProto> hlo;  // fully parsed (HloProtos are small)
};

// ---- runtime (from /host:CPU) ---------------------------------------------------------------------

enum class MemoryEventKind : std::uint8_t { Allocation, Deallocation };

// One MemoryAllocation / MemoryDeallocation event of a BFC allocator.
struct MemoryEvent {
  std::int64_t time_ps = 0;
  MemoryEventKind kind = MemoryEventKind::Allocation;
  std::uint32_t allocator = 0;  // index into Capture::allocators()
  std::uint64_t addr = 0;
  std::int64_t requested_bytes = 0;
  std::int64_t allocation_bytes = 0;
  std::int64_t bytes_in_use = 0;  // stat bytes_allocated: in use after this operation
  std::int64_t bytes_available = 0;
  std::int64_t bytes_reserved = 0;     // -1: the event has no bytes_reserved stat
  std::int64_t peak_bytes_in_use = 0;  // allocator lifetime peak (may predate the capture)
  double fragmentation = 0.0;
  std::int64_t step_id = -1;  // stat "id" when present
  std::uint32_t line = 0;     // index of the line in the /host:CPU plane
  std::uint32_t tf_op = 0;    // index into Capture::strings() (0 = none)
  std::uint32_t shape = 0;    // index into Capture::strings() (0 = none)
};

struct AllocatorSummary {
  std::string name;  // allocator_name, e.g. "GPU_0_bfc"
  std::int64_t allocations = 0;
  std::int64_t deallocations = 0;
  std::int64_t max_bytes_in_use = 0;    // max of bytes_allocated over the capture
  std::int64_t peak_bytes_in_use = 0;   // max of the peak_bytes_in_use stat (lifetime peak)
  std::int64_t capacity_bytes = 0;      // bytes_allocated + bytes_available at the max in-use event
  std::int64_t largest_allocation = 0;  // max allocation_bytes
  std::int64_t first_time_ps = 0;
  std::int64_t last_time_ps = 0;
};

// An AllocatorRetry::AllocateRaw span: time waited under memory pressure.
struct RetryEvent {
  std::int64_t time_ps = 0;
  std::int64_t duration_ps = 0;
  std::uint32_t line = 0;
};

enum class ExecutionKind : std::uint8_t {
  XlaModule,      // "<module>:XLA GPU module" host span (name = module name)
  ExecuteHelper,  // PjRt*LoadedExecutable::ExecuteHelper / LocalExecutable::Execute
  PjitFunction,   // PjitFunction(<python function>) (name = python function)
  DeviceModule,   // TPU "XLA Modules" line event (name = module name, program id from the (N) suffix)
};

struct ExecutionSpan {
  ExecutionKind kind = ExecutionKind::XlaModule;
  std::string name;
  std::optional<std::uint64_t> program_id;
  std::int64_t time_ps = 0;
  std::int64_t duration_ps = 0;
  std::uint32_t plane = 0;  // index into Capture::planes()
  std::uint32_t line = 0;   // index into that plane's lines
};

// A device event (kernel, memcpy, memset) that names the program it belongs to.
struct DeviceProgramEvent {
  std::int64_t time_ps = 0;
  std::uint64_t program_id = 0;   // 0 when only hlo_module is known
  std::uint32_t module_name = 0;  // index into Capture::strings() (0 = none)
  std::uint32_t plane = 0;
  std::uint64_t correlation_id = 0;  // joins it to the host launch (0 = none)
  std::int64_t duration_ps = 0;
  std::uint32_t hlo_op = 0;  // the HLO instruction it runs (stat hlo_op), index into strings() (0 = none)
};

// A host-side launch (CUPTI/roctracer driver-API callback: hipModuleLaunchKernel, cuLaunchKernel, a
// memcpy/memset call) that carries a correlation_id. The device event with the same correlation_id is
// what it launched; device_id names the device; program_id is set when the launch itself carries it.
struct LaunchEvent {
  std::int64_t time_ps = 0;
  std::uint64_t correlation_id = 0;
  std::optional<std::int64_t> device_id;
  std::optional<std::uint64_t> program_id;
  std::uint32_t plane = 0;
  std::uint32_t line = 0;
};

// ---- the capture ----------------------------------------------------------------------------------

class Capture {
 public:
  Capture();
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t file_size() const { return file_size_; }  // of the XSpace: decompressed, for a .gz
  bool decompressed() const { return decompressed_; }     // read from a gzip file

  const std::vector<std::string>& hostnames() const { return hostnames_; }
  // XSpace.errors / warnings / hostnames: each distinct text once, in first-seen order, at most 100 of each
  // (repeats and the rest are counted in reader_notes()).
  const std::vector<std::string>& errors() const { return errors_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<Plane>& planes() const { return planes_; }
  const Plane* find_plane(std::string_view name) const;
  std::size_t event_count() const;

  // Plan: one entry per HloProto in /host:metadata, in the order of program id.
  const std::vector<Module>& modules() const { return modules_; }
  const Module* find_module(std::string_view name_or_id) const;  // by name, metadata name or program id
  // Problems met while reading modules (an HloProto that does not parse, say); the rest still loads.
  const std::vector<std::string>& module_problems() const { return module_problems_; }
  // What the reader noticed and summarised instead of keeping: repeated errors or hostnames (with counts),
  // byte-identical copies of planes that were ignored (a capture joined to itself), empty events or lines.
  const std::vector<std::string>& reader_notes() const { return reader_notes_; }
  // Set when the file ends inside a top-level field and what precedes the cut was kept (cut_short.h).
  const std::optional<CutShort>& cut_short() const { return cut_short_; }

  // True when the file became shorter after it was read (while the capture is open): the events' stats
  // (event_stats) then read as zeros and cannot be trusted; reopen the file.
  bool file_shrank() const;

  // Runtime, all sorted by time.
  const std::vector<AllocatorSummary>& allocators() const { return allocators_; }
  const std::vector<MemoryEvent>& memory_events() const { return memory_events_; }
  const std::vector<RetryEvent>& allocator_retries() const { return retries_; }
  const std::vector<ExecutionSpan>& executions() const { return executions_; }
  const std::vector<DeviceProgramEvent>& device_program_events() const { return device_events_; }
  const std::vector<LaunchEvent>& launch_events() const { return launches_; }
  // Interned strings referenced by index from the tables above; strings()[0] == "".
  const std::vector<std::string>& strings() const { return strings_; }

  // Decodes the stats of one event of a plane, names resolved, refs resolved.
  std::vector<Stat> event_stats(const Plane& plane, const EventRecord& event) const;

  // Wall-clock start of the profile (ns since the epoch) from "Task Environment", when present.
  std::optional<std::int64_t> profile_start_time_ns() const { return profile_start_ns_; }
  // Where time 0 of the ps times above lies on the wall clock (ns since the epoch), so that captures of
  // several hosts can be put on one clock: the base subtracted from lines that kept since-epoch timestamps
  // (which would overflow int64 ps), else the profile start (XProf normalises lines to it); nullopt when
  // the capture records neither.
  std::optional<std::int64_t> clock_origin_ns() const { return clock_origin_ns_; }

 private:
  friend class CaptureBuilder;
  std::string path_;
  std::uint64_t file_size_ = 0;
  bool decompressed_ = false;
  std::shared_ptr<const MappedFile> mapping_;
  std::vector<std::string> hostnames_, errors_, warnings_;
  std::vector<Plane> planes_;
  std::vector<Module> modules_;
  std::vector<std::string> module_problems_;
  std::vector<std::string> reader_notes_;
  std::optional<CutShort> cut_short_;
  std::vector<AllocatorSummary> allocators_;
  std::vector<MemoryEvent> memory_events_;
  std::vector<RetryEvent> retries_;
  std::vector<ExecutionSpan> executions_;
  std::vector<DeviceProgramEvent> device_events_;
  std::vector<LaunchEvent> launches_;
  std::vector<std::string> strings_;
  std::optional<std::int64_t> profile_start_ns_;
  std::optional<std::int64_t> clock_origin_ns_;
  std::unique_ptr<const CaptureInternals> internals_;
};

}  // namespace oomscope::capture
