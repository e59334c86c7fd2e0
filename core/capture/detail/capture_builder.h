#pragma once
// Internal: builds a Capture from the mapped bytes. Its members are defined over six files:
// xspace_scanner.cpp (planes, lines, events), runtime_events.cpp (the typed runtime tables),
// runtime_summary.cpp (time order, the runtime summary), hlo_modules.cpp (the /host:metadata plan),
// reader_limits.cpp (the memory budget, repeated texts, notes) and reader.cpp (entry points, error wording).

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/capture/capture.h"
#include "core/capture/detail/capture_internals.h"
#include "core/capture/mapped_file.h"
#include "core/util/progress.h"

namespace oomscope::capture {

// What the reader does with an event, decided once per event-metadata entry.
enum class EventClass : std::uint8_t {
  None,
  MemAlloc,
  MemDealloc,
  Retry,
  XlaModule,
  ExecuteHelper,
  Pjit,
  Launch
};

// The stats the reader decodes while scanning, resolved once per plane entry from stat_metadata.
enum class StatKey : std::uint8_t {
  Other,
  AllocatorName,
  BytesAllocated,
  BytesAvailable,
  BytesReserved,
  PeakBytesInUse,
  RequestedBytes,
  AllocationBytes,
  Addr,
  Fragmentation,
  StepId,
  TfOp,
  Shape,
  ProgramId,
  HloModule,
  HloOp,
  IndexOnHost,
  DeviceOrdinal,
  CorrelationId,
  DeviceId,
};

enum class PlaneKind : std::uint8_t { HostCpu, HostMetadata, Device, TaskEnvironment, Other };

// What a cheap first walk over an XLine entry found: its id and how many events it holds, so that every
// line's event table is sized once. ok is false when that walk met bad bytes; the full scan of the entry
// then reports them.
struct LineShape {
  std::int64_t id = 0;
  std::uint32_t events = 0;
  std::uint32_t memory_events = 0;  // an estimate: events whose first field names allocator metadata
  std::uint32_t launches = 0;       // the same estimate for driver-API launches (EventClass::Launch)
  std::uint32_t executions = 0;     // ... and for host execution spans (XlaModule, ExecuteHelper, Pjit)
  std::uint32_t empty_events = 0;   // events with no bytes at all: counted, never stored
  bool named = false;               // the entry has a name or display name
  bool module_line = false;         // the entry is named "XLA Modules" (a device plane's module spans)
  bool ok = false;
};

// Per plane: event-metadata ids an EventRecord cannot hold (outside [0, EventRecord::kMaxMetadataId]) and
// the ids they were renumbered to; every id below free_from is taken (renumbering looks for gaps from there).
struct PlaneIds {
  std::unordered_map<std::int64_t, std::int64_t> wide;
  std::int64_t free_from = 0;
};

// Values keyed by wire ids (stat or event metadata), looked up once or more per event. Writers number
// metadata from 1 upwards, so the ids are small: those sit in a flat table built by freeze(), the rest
// (any int64 is legal) stay in the map. A missing id reads as V{} (StatKey::Other, EventClass::None).
template <typename V>
struct IdTable {
  static constexpr std::int64_t kMaxFlat = 1 << 16;
  std::unordered_map<std::int64_t, V> map;  // filled first; the first value for an id wins
  std::vector<V> flat;                      // flat[id] for 0 <= id < flat.size()

  bool empty() const { return map.empty(); }
  void freeze() {
    std::int64_t top = -1;
    for (const auto& [id, v] : map)
      if (id >= 0 && id < kMaxFlat) top = std::max(top, id);
    flat.assign(static_cast<std::size_t>(top + 1), V{});
    for (const auto& [id, v] : map)
      if (id >= 0 && id <= top) flat[static_cast<std::size_t>(id)] = v;
  }
  V find(std::int64_t id) const {
    if (id >= 0 && static_cast<std::uint64_t>(id) < flat.size()) return flat[static_cast<std::size_t>(id)];
    if (map.empty()) return V{};
    const auto it = map.find(id);
    return it == map.end() ? V{} : it->second;
  }
};

// Hash of std::string keys that also takes string_views, so a lookup builds no string.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIndex = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

// Parses one serialized xla::HloProto (nullptr when the bytes are not one); shared by /host:metadata and
// the sidecar reader, like make_module().
std::shared_ptr<const xla::HloProto> parse_hlo_proto(std::string_view bytes);
Module make_module(std::shared_ptr<const xla::HloProto> hlo, std::uint64_t program_id,
                   std::string metadata_name, std::size_t hlo_bytes);

EventClass classify_event_name(PlaneKind plane, std::string_view name);
// "jit_f(123)" -> ("jit_f", 123); nullopt when the name has no numeric (N) suffix.
std::optional<std::pair<std::string_view, std::uint64_t>> split_program_suffix(std::string_view name);

// Faults in the pages of reserved but not yet written memory on a second thread (page_warmer.cpp). The
// thread starts on the first warm(); memory handed to warm() must stay mapped until wait() returns or
// the warmer is destroyed.
class PageWarmer {
 public:
  PageWarmer() = default;
  PageWarmer(const PageWarmer&) = delete;
  PageWarmer& operator=(const PageWarmer&) = delete;
  ~PageWarmer();
  void warm(void* begin, std::size_t bytes);
  void wait();  // until every range handed over so far is done

 private:
  void run(std::stop_token stop);
  std::mutex mutex_;
  std::condition_variable_any cv_;
  std::condition_variable_any idle_;
  std::deque<std::pair<std::byte*, std::size_t>> queue_;
  bool busy_ = false;
  std::jthread worker_;
};

// table_sizing.cpp
// `window` is advanced as the walk moves through the entry's events.
LineShape line_shape(const wire::WireReader& parent, std::string_view payload,
                     const IdTable<EventClass>& classes, PassWindow& window);
// Grows `table` to hold `extra` more records, exactly, and (when `warm`) has the warmer fault the new block
// in; for EventRecord, MemoryEvent and the typed runtime tables. A table sized from an upper bound is not
// warmed: the pages it never fills stay unbacked.
template <typename T>
void reserve_table(std::vector<T>& table, std::size_t extra, PageWarmer& warmer, bool warm = true);

class CaptureBuilder {
 public:
  CaptureBuilder(std::shared_ptr<const MappedFile> file, std::string path, ProgressSink& progress,
                 std::stop_token stop);
  std::shared_ptr<const Capture> build();
  void set_decompressed() { capture_->decompressed_ = true; }

 private:
  // Per plane entry, while it is scanned.
  struct Segment {
    std::uint32_t plane = 0;
    PlaneKind kind = PlaneKind::Other;
    const std::map<std::int64_t, std::string>* stat_names = nullptr;
    IdTable<StatKey> stat_keys;
    IdTable<EventClass> classes;                              // by wire metadata id
    std::unordered_map<std::int64_t, std::int64_t> id_remap;  // wire id -> merged id, when they clash
    struct PlaneIds* ids = nullptr;                           // the plane's renumbering books
    bool device_program_stats = false;  // the entry names program_id or hlo_module stats
  };
  struct Pending {
    std::uint32_t event = 0;  // index into the events vector the line's entry is scanned into
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
  void read_stat_metadata(const wire::WireReader& parent, std::string_view entry, PlaneSegment& seg,
                          Plane& plane);
  void read_event_metadata(const wire::WireReader& parent, std::string_view entry, Segment& seg,
                           Plane& plane);
  void scan_line(const wire::WireReader& parent, std::string_view payload, const LineShape& shape,
                 std::unordered_map<std::int64_t, std::uint64_t>& to_reserve, Segment& seg, Plane& plane,
                 std::unordered_map<std::int64_t, std::uint32_t>& line_index);
  void scan_event(const wire::WireReader& parent, std::string_view payload, const Segment& seg,
                  std::vector<EventRecord>& out);
  void tick();
  // cut_short.cpp: the file ends inside the top-level field at top_field_at_ (error is the scan's
  // truncation): keeps what was read whole (Capture::cut_short) or throws error, saying why it does not.
  void accept_cut(wire::WireError& error);

  // runtime_events.cpp
  void on_event(const Segment& seg, std::uint32_t line, const EventRecord& ev, EventClass cls);
  std::string_view bytes_of(const EventRecord& ev) const;  // its XEvent message in the mapping
  std::int64_t duration_of(const EventRecord& ev) const;   // exact, from the bytes when the record rounds
  void on_device_module(const Segment& seg, std::uint32_t line, const EventRecord& ev);
  void on_device_event(const Segment& seg, const EventRecord& ev);
  void finish_runtime();
  template <typename T>
  void grow_for_one(std::vector<T>& table);  // before a push_back that may outgrow the reservation
  std::uint32_t intern(std::string_view s);

  // hlo_modules.cpp
  void finish_modules();

  // reader_limits.cpp: what keeps memory and output bounded on hostile input.
  // Counts `bytes` of memory the reader is about to keep; throws oomscope::Error (TooLarge) naming the file
  // and `what` once the total passes the budget (kBudgetTimesFile x the file size + kBudgetFloor).
  void charge(std::uint64_t bytes, const char* what);
  void refund(std::uint64_t bytes) { charged_ -= std::min(charged_, bytes); }
  // XSpace errors, warnings and hostnames: each distinct text kept once (up to kMaxDistinct), repeats
  // counted.
  struct RepeatedText {
    std::vector<std::string>* kept = nullptr;
    std::unordered_map<std::string_view, std::uint64_t> counts;  // views into the mapping
    std::uint64_t total = 0, dropped = 0;
  };
  void add_text(RepeatedText& list, std::string_view text);
  // True when this plane entry is byte for byte a copy of an earlier entry of the same plane (then skipped).
  bool repeated_plane_entry(std::uint32_t plane, std::string_view name, std::string_view payload);
  void finish_notes();  // the reader's notes (capture.h) from the counts above; the clock origin
  std::int64_t rebase_line_ns(std::int64_t timestamp_ns);  // xspace_scanner.cpp

 public:
  static constexpr std::uint64_t kBudgetTimesFile = 8;
  static constexpr std::uint64_t kBudgetFloor = 64ull << 20;
  static constexpr std::size_t kMaxDistinct = 100;

 private:
  std::shared_ptr<const MappedFile> file_;
  std::string path_;
  ProgressSink& progress_;
  std::stop_token stop_;
  std::unique_ptr<Capture> capture_;
  std::unique_ptr<CaptureInternals> internals_;

  std::map<std::string, std::uint32_t, std::less<>> plane_by_name_;
  std::vector<std::unordered_map<std::int64_t, std::uint32_t>> line_index_;  // per plane: line id -> index
  std::vector<bool> plane_needs_sort_;
  std::vector<PlaneIds> plane_ids_;                         // per plane
  std::vector<std::vector<std::uint32_t>> unsorted_lines_;  // per plane: lines whose events are out of order
  std::vector<EventRecord> scratch_;  // only for an entry whose first walk failed (its scan throws)
  std::vector<Pending> pending_;
  std::uint64_t events_seen_ = 0;
  std::uint64_t top_field_at_ = 0;  // file offset of the top-level field being read (cut_short.cpp)
  std::uint64_t scan_offset_ = 0;   // file offset of the last event scanned, for progress
  PassWindow window_;               // the part of the mapping the current walk over a plane keeps resident

  std::vector<PendingModule> pending_modules_;
  StringIndex string_index_;
  std::vector<std::string> allocator_names_;  // provisional, in first-seen order
  StringIndex allocator_index_;
  std::vector<std::pair<std::int64_t, std::uint64_t>> device_ordinal_allocators_;  // provisional idx, ordinal

  std::uint64_t budget_ = 0, charged_ = 0;
  RepeatedText errors_, warnings_, hostnames_;
  std::uint64_t empty_events_ = 0, empty_lines_ = 0;
  std::optional<std::int64_t> epoch_base_ns_;  // set by rebase_line_ns when lines are since the epoch
  struct EntryKey {
    std::uint32_t plane;
    std::uint64_t size;
    std::size_t sample;  // hash of a few hundred bytes at the start, middle and end
    bool operator==(const EntryKey&) const = default;
  };
  struct EntryKeyHash {
    std::size_t operator()(const EntryKey& k) const { return k.sample ^ (k.size * 1000003u + k.plane); }
  };
  std::unordered_map<EntryKey, std::vector<const std::uint8_t*>, EntryKeyHash> plane_entries_;
  std::map<std::string, std::uint64_t, std::less<>>
      repeated_planes_;  // plane name -> identical copies skipped
  std::map<std::string, std::uint64_t, std::less<>>
      distinct_plane_entries_;  // plane name -> entries that are not copies of an earlier one

  // Last, so that it stops before the tables it may be warming are freed.
  PageWarmer warmer_;
};

}  // namespace oomscope::capture
