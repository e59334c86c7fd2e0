#pragma once
// Internal: builds a Capture from the mapped bytes. The work is split over several files:
// xspace_scanner.cpp (planes, lines, events), runtime_events.cpp (the typed runtime tables),
// hlo_modules.cpp (the /host:metadata plan) and reader.cpp (entry points and error wording).

#include <cstdint>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/capture/capture.h"
#include "core/capture/capture_internals.h"
#include "core/capture/mapped_file.h"
#include "core/util/progress.h"

namespace oomscope::capture {

// What the reader does with an event, decided once per event-metadata entry.
enum class EventClass : std::uint8_t { None, MemAlloc, MemDealloc, Retry, XlaModule, ExecuteHelper, Pjit };

// The stats the reader decodes while scanning, resolved once per plane entry from stat_metadata.
enum class StatKey : std::uint8_t {
  Other, AllocatorName, BytesAllocated, BytesAvailable, BytesReserved, PeakBytesInUse, RequestedBytes,
  AllocationBytes, Addr, Fragmentation, StepId, TfOp, Shape, ProgramId, HloModule, IndexOnHost, DeviceOrdinal,
};

enum class PlaneKind : std::uint8_t { HostCpu, HostMetadata, Device, TaskEnvironment, Other };

// Parses one serialized xla::HloProto (nullptr when the bytes are not one); shared by /host:metadata and
// the sidecar reader, like make_module().
std::shared_ptr<const xla::HloProto> parse_hlo_proto(std::string_view bytes);
Module make_module(std::shared_ptr<const xla::HloProto> hlo, std::uint64_t program_id, std::string metadata_name,
                   std::size_t hlo_bytes);

EventClass classify_event_name(PlaneKind plane, std::string_view name);
// "jit_f(123)" -> ("jit_f", 123); nullopt when the name has no numeric (N) suffix.
std::optional<std::pair<std::string_view, std::uint64_t>> split_program_suffix(std::string_view name);

class CaptureBuilder {
 public:
  CaptureBuilder(std::shared_ptr<const MappedFile> file, std::string path, ProgressSink& progress,
                 std::stop_token stop);
  std::shared_ptr<const Capture> build();

 private:
  // Per plane entry, while it is scanned.
  struct Segment {
    std::uint32_t plane = 0;
    PlaneKind kind = PlaneKind::Other;
    const std::map<std::int64_t, std::string>* stat_names = nullptr;
    std::unordered_map<std::int64_t, StatKey> stat_keys;
    std::unordered_map<std::int64_t, EventClass> classes;     // by wire metadata id
    std::unordered_map<std::int64_t, std::int64_t> id_remap;  // wire id -> merged id, when they clash
    bool device_program_stats = false;  // the entry names program_id or hlo_module stats
  };
  struct Pending {
    std::uint32_t event = 0;  // index into the line scratch
    EventClass cls = EventClass::None;
  };
  struct PendingModule {
    std::string metadata_name;
    std::int64_t key = 0;
    std::optional<std::uint64_t> program_id_stat;
    std::string_view hlo_bytes;
  };

  // xspace_scanner.cpp
  void scan_space();
  void scan_plane(const wire::WireReader& parent, std::string_view payload);
  void read_stat_metadata(const wire::WireReader& parent, std::string_view entry, PlaneSegment& seg, Plane& plane);
  void read_event_metadata(const wire::WireReader& parent, std::string_view entry, Segment& seg, Plane& plane);
  void scan_line(const wire::WireReader& parent, std::string_view payload, Segment& seg, Plane& plane,
                 std::unordered_map<std::int64_t, std::uint32_t>& line_index);
  void scan_event(const wire::WireReader& parent, std::string_view payload, const Segment& seg);
  void tick();

  // runtime_events.cpp
  void on_event(const Segment& seg, std::uint32_t line, const EventRecord& ev, EventClass cls);
  void on_device_module(const Segment& seg, std::uint32_t line, const EventRecord& ev);
  void on_device_event(const Segment& seg, const EventRecord& ev);
  void finish_runtime();
  std::uint32_t intern(std::string_view s);

  // hlo_modules.cpp
  void finish_modules();

  std::shared_ptr<const MappedFile> file_;
  std::string path_;
  ProgressSink& progress_;
  std::stop_token stop_;
  std::unique_ptr<Capture> capture_;
  std::unique_ptr<CaptureInternals> internals_;

  std::map<std::string, std::uint32_t, std::less<>> plane_by_name_;
  std::vector<std::unordered_map<std::int64_t, std::uint32_t>> line_index_;  // per plane: line id -> index
  std::vector<bool> plane_needs_sort_;
  std::vector<EventRecord> scratch_;
  std::vector<Pending> pending_;
  std::uint64_t events_seen_ = 0;
  std::uint64_t released_ = 0;  // mapping bytes already handed back to the kernel (MappedFile::release_prefix)

  std::vector<PendingModule> pending_modules_;
  std::unordered_map<std::string, std::uint32_t> string_index_;
  std::vector<std::string> allocator_names_;  // provisional, in first-seen order
  std::unordered_map<std::string, std::uint32_t> allocator_index_;
  std::vector<std::pair<std::int64_t, std::uint64_t>> device_ordinal_allocators_;  // provisional idx, ordinal
};

}  // namespace oomscope::capture
