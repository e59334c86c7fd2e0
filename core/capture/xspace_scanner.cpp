// The in-place scan of XSpace: planes, lines and events are walked over the mapping without building
// protobuf messages. Field order is never assumed: a plane is walked once to find its parts (metadata
// may follow the lines), a line's events get their absolute times once the whole line (and so its
// timestamp_ns) has been read, and an event's metadata id may come after its stats.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/capture/detail/capture_builder.h"
#include "core/capture/detail/xplane_fields.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::capture {

using wire::Field;
using wire::WireReader;
using wire::WireType;

namespace {

PlaneKind plane_kind(std::string_view name) {
  if (name == "/host:CPU") return PlaneKind::HostCpu;
  if (name == "/host:metadata") return PlaneKind::HostMetadata;
  if (name.starts_with("/device:")) return PlaneKind::Device;
  if (name == "Task Environment") return PlaneKind::TaskEnvironment;
  return PlaneKind::Other;
}

StatKey stat_key(std::string_view name) {
  static const std::unordered_map<std::string_view, StatKey> keys = {
      {"allocator_name", StatKey::AllocatorName},
      {"bytes_allocated", StatKey::BytesAllocated},
      {"bytes_available", StatKey::BytesAvailable},
      {"bytes_reserved", StatKey::BytesReserved},
      {"peak_bytes_in_use", StatKey::PeakBytesInUse},
      {"requested_bytes", StatKey::RequestedBytes},
      {"allocation_bytes", StatKey::AllocationBytes},
      {"addr", StatKey::Addr},
      {"fragmentation", StatKey::Fragmentation},
      {"id", StatKey::StepId},
      {"tf_op", StatKey::TfOp},
      {"shape", StatKey::Shape},
      {"program_id", StatKey::ProgramId},
      {"hlo_module", StatKey::HloModule},
      {"hlo_op", StatKey::HloOp},
      {"index_on_host", StatKey::IndexOnHost},
      {"device_ordinal", StatKey::DeviceOrdinal},
      {"correlation_id", StatKey::CorrelationId},
      {"device_id", StatKey::DeviceId},
  };
  auto it = keys.find(name);
  return it == keys.end() ? StatKey::Other : it->second;
}

// line.timestamp_ns * 1000 + offset_ps without signed overflow: a line that kept an epoch timestamp
// (not normalized to the profile start) would overflow int64 picoseconds; such times saturate.
std::int64_t absolute_ps(std::int64_t timestamp_ns, std::int64_t offset_ps) {
  std::int64_t base = 0, sum = 0;
  if (__builtin_mul_overflow(timestamp_ns, std::int64_t{1000}, &base))
    return timestamp_ns > 0 ? std::numeric_limits<std::int64_t>::max()
                            : std::numeric_limits<std::int64_t>::min();
  if (__builtin_add_overflow(base, offset_ps, &sum))
    return offset_ps > 0 ? std::numeric_limits<std::int64_t>::max()
                         : std::numeric_limits<std::int64_t>::min();
  return sum;
}

}  // namespace

// Lines whose timestamp is since the epoch (not normalised to the profile start, as XProf's exports are)
// would overflow int64 picoseconds (2^63 ps is 107 days). Their times are counted from a base instead: the
// first such timestamp met, rounded down to a whole second; Capture::clock_origin_ns() gives it.
std::int64_t CaptureBuilder::rebase_line_ns(std::int64_t timestamp_ns) {
  constexpr std::int64_t kSinceEpoch = 1'000'000'000'000'000;  // 11.6 days: no profile runs that long
  if (timestamp_ns < kSinceEpoch) return timestamp_ns;
  if (!epoch_base_ns_) epoch_base_ns_ = timestamp_ns - timestamp_ns % 1'000'000'000;
  return timestamp_ns - *epoch_base_ns_;
}

namespace {

// An id in [0, EventRecord::kMaxMetadataId] that no entry of the map uses (all its ids are in that range),
// for renumbering clashing event metadata of split planes and ids an EventRecord cannot hold: above the
// largest, else the first gap at or after free_from (below it all are taken, so a plane of many renumbered
// entries is not searched from 0 each time); nullopt when the range is full.
std::optional<std::int64_t> unused_metadata_id(const std::map<std::int64_t, EventMetadata>& md,
                                               std::int64_t& free_from) {
  if (md.empty()) return 0;
  if (md.rbegin()->first < EventRecord::kMaxMetadataId)
    return std::max<std::int64_t>(md.rbegin()->first + 1, 0);
  std::int64_t next = free_from;
  for (auto it = md.lower_bound(next); it != md.end() && it->first == next; ++it) ++next;
  free_from = next;
  if (next > EventRecord::kMaxMetadataId) return std::nullopt;
  return next;
}

std::string_view rest(std::string_view payload, const std::uint8_t* from) {
  const auto done = static_cast<std::size_t>(reinterpret_cast<const char*>(from) - payload.data());
  return payload.substr(done);
}

}  // namespace

void CaptureBuilder::tick() {
  if ((++events_seen_ & 4095) != 0) return;
  if (stop_.stop_requested()) throw Cancelled(path_);
  window_.advance(scan_offset_);
  if ((events_seen_ & 65535) == 0)
    progress_.report(
        0.95 * std::min(static_cast<double>(scan_offset_) / static_cast<double>(file_->size()), 1.0),
        "reading events");
}

void CaptureBuilder::scan_space() {
  WireReader r(file_->data(), file_->data(), file_->data() + file_->size(), /*outermost=*/true);
  while (!r.done()) {
    const std::uint64_t at = r.offset();
    top_field_at_ = at;
    const Field f = r.field();
    // planes, errors, warnings and hostnames: the schema's fields, all length-delimited
    static_assert(xf::XSpace::kPlanesFieldNumber == 1 && xf::XSpace::kHostnamesFieldNumber == 4);
    if (f.number >= xf::XSpace::kPlanesFieldNumber && f.number <= xf::XSpace::kHostnamesFieldNumber &&
        f.type != WireType::Len)
      throw Error(ErrorKind::NotACapture, path_,
                  "this is protobuf data but not an XSpace capture, or one damaged at byte " +
                      format_bytes_exact(static_cast<std::int64_t>(at)) + " (field " +
                      std::to_string(f.number) + " there has the wrong wire type)")
          .at(at);
    switch (f.number) {
      case xf::XSpace::kPlanesFieldNumber:
        scan_plane(r, r.bytes());
        break;
      case xf::XSpace::kErrorsFieldNumber:
        add_text(errors_, r.bytes());
        break;
      case xf::XSpace::kWarningsFieldNumber:
        add_text(warnings_, r.bytes());
        break;
      case xf::XSpace::kHostnamesFieldNumber:
        add_text(hostnames_, r.bytes());
        break;
      default:
        r.skip(f.type);
    }
    if (stop_.stop_requested()) throw Cancelled(path_);
    progress_.report(0.95 * static_cast<double>(r.offset()) / static_cast<double>(file_->size()),
                     "reading planes");
  }
}

void CaptureBuilder::scan_plane(const WireReader& parent, std::string_view payload) {
  WireReader r = parent.sub(payload);
  std::int64_t id = 0;
  std::string_view name;
  std::vector<std::string_view> lines, event_md, stat_md, stats;
  // The views below are charged as they are taken (twice their size: a growing vector may hold that), so
  // a plane of millions of entries is refused before they are held; handed back once the entry is scanned.
  // A small line that holds nothing (no name, no events with bytes) is only counted.
  std::uint64_t transient = 0;
  const auto take = [&](std::vector<std::string_view>& into, std::string_view bytes, std::uint64_t each,
                        const char* what) {
    charge(2 * each, what);
    transient += 2 * each;
    into.push_back(bytes);
  };
  const auto take_line = [&](std::string_view bytes) {
    if (bytes.size() <= 16) {
      std::uint32_t empty_events = 0;
      bool content = false;
      const auto* b = reinterpret_cast<const std::uint8_t*>(bytes.data());
      const auto* stopped = quick_walk(
          b, b + bytes.size(), [](std::uint32_t, std::uint64_t) {},
          [&](std::uint32_t number, std::string_view v) {
            if (number == xf::XLine::kEventsFieldNumber && v.empty())
              ++empty_events;
            else if ((number == xf::XLine::kEventsFieldNumber || number == xf::XLine::kNameFieldNumber ||
                      number == xf::XLine::kDisplayNameFieldNumber) &&
                     !v.empty())
              content = true;
          });
      if (!content && stopped == b + bytes.size()) {
        ++empty_lines_;
        empty_events_ += empty_events;
        return;
      }
    }
    take(lines, bytes, sizeof(std::string_view) + sizeof(LineShape), "lines");
  };
  const std::uint64_t plane_begin = r.offset(), plane_end = plane_begin + payload.size();
  // Each walk below goes front to back over the plane; the pages it has passed are handed back.
  window_.start(plane_begin, plane_end, /*populate=*/false);
  while (!r.done()) {
    const std::uint64_t at = r.offset();
    window_.advance(at);
    const Field f = r.field();
    // id is a varint; name, lines, event_metadata, stat_metadata and stats are length-delimited
    static_assert(xf::XPlane::kIdFieldNumber == 1 && xf::XPlane::kStatsFieldNumber == 6);
    const WireType want = f.number == xf::XPlane::kIdFieldNumber ? WireType::Varint : WireType::Len;
    if (f.number >= xf::XPlane::kIdFieldNumber && f.number <= xf::XPlane::kStatsFieldNumber && f.type != want)
      throw Error(ErrorKind::NotACapture, path_,
                  "this is protobuf data but not an XSpace capture, or one damaged at byte " +
                      format_bytes_exact(static_cast<std::int64_t>(at)) + " (a plane's field " +
                      std::to_string(f.number) + " there has the wrong wire type)")
          .at(at);
    switch (f.number) {
      case xf::XPlane::kIdFieldNumber:
        id = wire::as_int64(r.varint());
        break;
      case xf::XPlane::kNameFieldNumber:
        name = r.bytes();
        break;
      case xf::XPlane::kLinesFieldNumber:
        take_line(r.bytes());
        break;
      case xf::XPlane::kEventMetadataFieldNumber:
        take(event_md, r.bytes(), sizeof(std::string_view), "event metadata");
        break;
      case xf::XPlane::kStatMetadataFieldNumber:
        take(stat_md, r.bytes(), sizeof(std::string_view), "stat metadata");
        break;
      case xf::XPlane::kStatsFieldNumber:
        take(stats, r.bytes(), sizeof(std::string_view), "plane stats");
        break;
      default:
        r.skip(f.type);
    }
  }

  window_.finish(plane_end);
  auto [it, created] =
      plane_by_name_.try_emplace(std::string(name), static_cast<std::uint32_t>(capture_->planes_.size()));
  if (created) {
    // The Plane (twice: the table grows by doubling) and the reader's per-plane books.
    charge(2 * sizeof(Plane) + 512 + 2 * name.size(), "planes");
    capture_->planes_.emplace_back();
    capture_->planes_.back().id = id;
    capture_->planes_.back().name = std::string(name);
    internals_->segments.emplace_back();
    line_index_.emplace_back();
    plane_needs_sort_.push_back(false);
    unsorted_lines_.emplace_back();
    plane_ids_.emplace_back();
  }
  const std::uint32_t plane_idx = it->second;
  if (repeated_plane_entry(plane_idx, name, payload)) {
    refund(transient);
    return;
  }
  Plane& plane = capture_->planes_[plane_idx];
  auto& segments = internals_->segments[plane_idx];
  PlaneSegment& pseg = segments.emplace_back();
  pseg.begin =
      static_cast<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(payload.data()) - file_->data());
  pseg.end = pseg.begin + payload.size();

  Segment seg;
  seg.plane = plane_idx;
  seg.kind = plane_kind(name);
  seg.stat_names = &pseg.stat_names;
  seg.ids = &plane_ids_[plane_idx];
  for (auto entry : stat_md) read_stat_metadata(r, entry, pseg, plane);
  for (const auto& [sid, sname] : pseg.stat_names) {
    const StatKey key = stat_key(sname);
    if (key != StatKey::Other) seg.stat_keys.map.emplace(sid, key);
    if (key == StatKey::ProgramId || key == StatKey::HloModule) seg.device_program_stats = true;
  }
  seg.stat_keys.freeze();
  for (auto entry : event_md) read_event_metadata(r, entry, seg, plane);
  seg.classes.freeze();
  for (auto s : stats) {
    charge(sizeof(Stat) + 64, "plane stats");
    const RawStat raw = read_raw_stat(r.sub(s));
    Stat stat = to_stat(raw, pseg.stat_names);
    if (seg.kind == PlaneKind::TaskEnvironment && stat.name == "profile_start_time")
      capture_->profile_start_ns_ = stat.value.as_int();
    plane.stats.push_back(std::move(stat));
  }
  // Lines are written as many XLine entries that share an id (a big capture repeats each id hundreds of
  // times); counting their events first lets each line's table be allocated once, at its final size.
  std::vector<LineShape> shapes;
  shapes.reserve(lines.size());
  std::unordered_map<std::int64_t, std::uint64_t> to_reserve;
  std::size_t memory_events = 0, launches = 0, executions = 0, device_events = 0;
  std::uint64_t events = 0;
  window_.start(plane_begin, plane_end, /*populate=*/true);
  for (auto line : lines) {
    window_.advance(r.offset_of(line));
    shapes.push_back(line_shape(r, line, seg.classes, window_));
    const LineShape& shape = shapes.back();
    if (!shape.ok) continue;
    to_reserve[shape.id] += shape.events;
    memory_events += shape.memory_events;
    launches += shape.launches;
    executions += shape.executions;
    if (seg.kind == PlaneKind::Device) {
      if (shape.module_line) executions += shape.events;
      if (seg.device_program_stats) device_events += shape.events;
    }
    events += shape.events;
  }
  charge(events * sizeof(EventRecord), "events");
  charge(memory_events * sizeof(MemoryEvent), "allocator events");
  reserve_table(capture_->memory_events_, memory_events, warmer_);
  // The typed tables are sized from the same walk, so that they are not copied as they grow (the 1 GB
  // conv3d capture's launch table is hundreds of MiB). Launches and host spans are counted like allocator
  // events; a device plane's events are an upper bound of its program events, so that table is not warmed.
  // Memory is charged as records are kept (runtime_events.cpp), not here.
  reserve_table(capture_->launches_, launches, warmer_);
  reserve_table(capture_->executions_, executions, warmer_);
  reserve_table(capture_->device_events_, device_events, warmer_, /*warm=*/false);
  window_.finish(plane_end);
  window_.start(plane_begin, plane_end, /*populate=*/true);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const LineShape& shape = shapes[i];
    if (shape.ok && shape.events == 0 && !shape.named) {  // nothing to show: no name, no events
      ++empty_lines_;
      empty_events_ += shape.empty_events;
      continue;
    }
    const std::uint64_t line_begin = r.offset_of(lines[i]);
    window_.advance(line_begin);
    scan_line(r, lines[i], shape, to_reserve, seg, plane, line_index_[plane_idx]);
    // The stats of the entry's allocator and device events were decoded after its events were scanned,
    // which brought back pages the window had released: a big entry hands them back now.
    if (lines[i].size() > 2 * PassWindow::kBehind) file_->release(line_begin, line_begin + lines[i].size());
  }
  window_.finish(plane_end);
  refund(transient);
}

void CaptureBuilder::read_stat_metadata(const WireReader& parent, std::string_view entry, PlaneSegment& seg,
                                        Plane& plane) {
  WireReader r = parent.sub(entry);
  std::optional<std::int64_t> key;
  std::int64_t value_id = 0;
  std::string_view name;
  while (!r.done()) {
    const Field f = r.field();
    if (f.number == xf::kMapKeyFieldNumber && f.type == WireType::Varint) {
      key = wire::as_int64(r.varint());
    } else if (f.number == xf::kMapValueFieldNumber && f.type == WireType::Len) {
      WireReader v = r.sub(r.bytes());
      while (!v.done()) {
        const Field g = v.field();
        if (g.number == xf::XStatMetadata::kIdFieldNumber && g.type == WireType::Varint)
          value_id = wire::as_int64(v.varint());
        else if (g.number == xf::XStatMetadata::kNameFieldNumber && g.type == WireType::Len)
          name = v.bytes();
        else
          v.skip(g.type);
      }
    } else {
      r.skip(f.type);
    }
  }
  const std::int64_t sid = key.value_or(value_id);
  charge(2 * (96 + name.size()), "stat metadata");
  seg.stat_names.emplace(sid, std::string(name));
  plane.stat_metadata.emplace(sid, std::string(name));
}

void CaptureBuilder::read_event_metadata(const WireReader& parent, std::string_view entry, Segment& seg,
                                         Plane& plane) {
  WireReader r = parent.sub(entry);
  std::optional<std::int64_t> key;
  EventMetadata md;
  std::optional<std::uint64_t> program_id_stat;
  std::string_view hlo_bytes;
  while (!r.done()) {
    const Field f = r.field();
    if (f.number == xf::kMapKeyFieldNumber && f.type == WireType::Varint) {
      key = wire::as_int64(r.varint());
      continue;
    }
    if (f.number != xf::kMapValueFieldNumber || f.type != WireType::Len) {
      r.skip(f.type);
      continue;
    }
    WireReader v = r.sub(r.bytes());
    while (!v.done()) {
      const Field g = v.field();
      if (g.number == xf::XEventMetadata::kIdFieldNumber && g.type == WireType::Varint) {
        md.id = wire::as_int64(v.varint());
      } else if (g.number == xf::XEventMetadata::kNameFieldNumber && g.type == WireType::Len) {
        md.name = std::string(v.bytes());
      } else if (g.number == xf::XEventMetadata::kDisplayNameFieldNumber && g.type == WireType::Len) {
        md.display_name = std::string(v.bytes());
      } else if (g.number == xf::XEventMetadata::kStatsFieldNumber && g.type == WireType::Len) {
        const RawStat raw = read_raw_stat(v.sub(v.bytes()));
        Stat stat = to_stat(raw, *seg.stat_names);
        if ((stat.name == "Hlo Proto" || stat.name == "HLO Proto") && raw.kind == RawStat::Kind::Bytes)
          hlo_bytes = raw.s;
        if (stat.name == "program_id" && stat.value.is_number()) program_id_stat = stat.value.as_uint();
        md.stats.push_back(std::move(stat));
      } else {
        v.skip(g.type);
      }
    }
  }
  charge(sizeof(EventMetadata) + 128 + md.name.size() + md.display_name.size() +
             md.stats.size() * (sizeof(Stat) + 64),
         "event metadata");
  const std::int64_t wire_id = key.value_or(md.id);
  const bool in_range = wire_id >= 0 && wire_id <= EventRecord::kMaxMetadataId;
  const auto renumbered = [&] {
    const std::optional<std::int64_t> id = unused_metadata_id(plane.event_metadata, seg.ids->free_from);
    if (!id)
      throw Error(ErrorKind::TooLarge, path_,
                  "plane \"" + plane.name + "\" has more than " +
                      format_bytes_exact(EventRecord::kMaxMetadataId + 1) +
                      " event metadata entries, more than oomscope can hold");
    return *id;
  };
  // The id this wire id already has in the plane (an earlier part of a split plane, or a renumbering).
  std::optional<std::int64_t> known;
  if (in_range) {
    if (plane.event_metadata.count(wire_id)) known = wire_id;
  } else if (auto w = seg.ids->wide.find(wire_id); w != seg.ids->wide.end()) {
    known = w->second;
  }
  std::int64_t merged_id = wire_id;
  if (known) {
    if (plane.event_metadata.at(*known).name == md.name) {
      merged_id = -1;  // same entry seen in an earlier part of a split plane
    } else {
      merged_id = renumbered();  // a clash between split parts: renumber
      seg.id_remap.emplace(wire_id, merged_id);
    }
  } else if (!in_range) {
    merged_id = renumbered();  // an id an EventRecord cannot hold
    charge(64, "event metadata");
    seg.ids->wide.emplace(wire_id, merged_id);
  }
  if (const EventClass cls = classify_event_name(seg.kind, md.name); cls != EventClass::None)
    seg.classes.map.emplace(wire_id, cls);
  if (seg.kind == PlaneKind::HostMetadata && !hlo_bytes.empty())
    pending_modules_.push_back(PendingModule{md.name, wire_id, program_id_stat, hlo_bytes});
  if (merged_id != -1) {
    md.id = merged_id;
    plane.event_metadata.emplace(merged_id, std::move(md));
  }
}

void CaptureBuilder::scan_line(const WireReader& parent, std::string_view payload, const LineShape& shape,
                               std::unordered_map<std::int64_t, std::uint64_t>& to_reserve, Segment& seg,
                               Plane& plane, std::unordered_map<std::int64_t, std::uint32_t>& line_index) {
  // Events go straight into the line's table, which is already big enough; their times are offsets until
  // the entry's timestamp_ns (which may follow them) is known.
  std::uint32_t line_idx = 0;
  bool created = false;
  std::vector<EventRecord>* out = &scratch_;
  if (shape.ok) {
    const auto [it, fresh] = line_index.try_emplace(shape.id, static_cast<std::uint32_t>(plane.lines.size()));
    line_idx = it->second;
    created = fresh;
    if (fresh) {
      charge(sizeof(Line) + 96, "lines");
      plane.lines.emplace_back().id = shape.id;
    }
    out = &plane.lines[line_idx].events;
    if (auto want = to_reserve.find(shape.id); want != to_reserve.end() && want->second != 0) {
      reserve_table(*out, static_cast<std::size_t>(want->second), warmer_);
      want->second = 0;
    }
  } else {
    scratch_.clear();
  }
  std::size_t first = out->size();

  Line header;
  pending_.clear();
  const auto on_varint = [&header](std::uint32_t number, std::uint64_t value) {
    if (number == xf::XLine::kIdFieldNumber)
      header.id = wire::as_int64(value);
    else if (number == xf::XLine::kDisplayIdFieldNumber)
      header.display_id = wire::as_int64(value);
    else if (number == xf::XLine::kTimestampNsFieldNumber)
      header.timestamp_ns = wire::as_int64(value);
    else if (number == xf::XLine::kDurationPsFieldNumber)
      header.duration_ps = wire::as_int64(value);
  };
  const auto on_len = [&](std::uint32_t number, std::string_view bytes) {
    if (number == xf::XLine::kEventsFieldNumber) {
      if (bytes.empty())
        ++empty_events_;  // nothing to keep: no metadata, no time, no stats
      else
        scan_event(parent, bytes, seg, *out);
    } else if (number == xf::XLine::kNameFieldNumber)
      header.name = std::string(bytes);
    else if (number == xf::XLine::kDisplayNameFieldNumber)
      header.display_name = std::string(bytes);
  };
  const auto* begin_bytes = reinterpret_cast<const std::uint8_t*>(payload.data());
  const std::uint8_t* stopped = quick_walk(begin_bytes, begin_bytes + payload.size(), on_varint, on_len);
  WireReader r = parent.sub(rest(payload, stopped));
  while (!r.done()) {
    const Field f = r.field();
    if (f.type == WireType::Len)
      on_len(f.number, r.bytes());
    else if (f.type == WireType::Varint)
      on_varint(f.number, r.varint());
    else
      r.skip(f.type);
  }

  if (!shape.ok) {
    // The first walk failed, so the scan above normally has thrown; should it not have, merge as usual.
    const auto [it, fresh] =
        line_index.try_emplace(header.id, static_cast<std::uint32_t>(plane.lines.size()));
    line_idx = it->second;
    created = fresh;
    if (fresh) plane.lines.emplace_back().id = header.id;
    std::vector<EventRecord>& events = plane.lines[line_idx].events;
    first = events.size();
    if (events.capacity() - first < scratch_.size()) warmer_.wait();  // insert below may move the table
    events.insert(events.end(), scratch_.begin(), scratch_.end());
    for (Pending& p : pending_) p.event += static_cast<std::uint32_t>(first);
  }

  Line& line = plane.lines[line_idx];
  const auto begin = line.events.begin() + static_cast<std::ptrdiff_t>(first), end = line.events.end();
  const std::int64_t line_ns = rebase_line_ns(header.timestamp_ns);
  for (auto ev = begin; ev != end; ++ev) ev->set_start_ps(absolute_ps(line_ns, ev->start_ps()));
  if (created) {
    charge(header.name.size() + header.display_name.size(), "line names");
    line.display_id = header.display_id;
    line.name = std::move(header.name);
    line.display_name = std::move(header.display_name);
    line.timestamp_ns = header.timestamp_ns;
    line.duration_ps = header.duration_ps;
  } else {
    line.timestamp_ns = std::min(line.timestamp_ns, header.timestamp_ns);
    if (line.name.empty()) line.name = std::move(header.name);
    plane_needs_sort_[seg.plane] = true;
  }
  // The line stays in time order when this entry is, and starts no earlier than what the line held.
  const auto earlier = [](const EventRecord& a, const EventRecord& b) { return a.start_ps() < b.start_ps(); };
  if (!std::is_sorted(begin, end, earlier) || (first != 0 && begin != end && earlier(*begin, *(begin - 1)))) {
    plane_needs_sort_[seg.plane] = true;
    unsorted_lines_[seg.plane].push_back(line_idx);
  }

  const bool module_line = seg.kind == PlaneKind::Device && line.name == "XLA Modules";
  for (const Pending& p : pending_) on_event(seg, line_idx, line.events[p.event], p.cls);
  if (seg.kind == PlaneKind::Device) {
    for (auto ev = begin; ev != end; ++ev) {
      if (module_line) on_device_module(seg, line_idx, *ev);
      on_device_event(seg, *ev);
    }
  }
}

void CaptureBuilder::scan_event(const WireReader& parent, std::string_view payload, const Segment& seg,
                                std::vector<EventRecord>& out) {
  std::int64_t wire_id = 0, offset_ps = 0, duration_ps = 0;
  const auto on_varint = [&](std::uint32_t number, std::uint64_t value) {
    const auto v = wire::as_int64(value);
    if (number == xf::XEvent::kMetadataIdFieldNumber)
      wire_id = v;
    else if (number == xf::XEvent::kOffsetPsFieldNumber)
      offset_ps = v;  // made absolute once the line is read
    else if (number == xf::XEvent::kDurationPsFieldNumber)
      duration_ps = v;
  };
  const auto* begin = reinterpret_cast<const std::uint8_t*>(payload.data());
  const auto no_len = [](std::uint32_t, std::string_view) {};
  const std::uint8_t* stopped = quick_walk(begin, begin + payload.size(), on_varint, no_len);
  if (stopped != begin + payload.size()) {
    WireReader r = parent.sub(rest(payload, stopped));
    while (!r.done()) {
      const Field f = r.field();
      if (f.type == WireType::Varint)
        on_varint(f.number, r.varint());
      else
        r.skip(f.type);
    }
  }
  std::int64_t id = wire_id;
  if (auto it = seg.id_remap.empty() ? seg.id_remap.end() : seg.id_remap.find(wire_id);
      it != seg.id_remap.end()) {
    id = it->second;
  } else if (id < 0 || id > EventRecord::kMaxMetadataId) {
    const auto w = seg.ids->wide.find(wire_id);
    id = w == seg.ids->wide.end() ? EventRecord::kUnknownMetadata : w->second;
  }
  // The reader refuses files over 2 GiB (reader.cpp), so an offset fits the record's 31 bits.
  static_assert(wire::kMaxMessageBytes <= std::uint64_t{1} << 31);
  const auto offset = static_cast<std::uint32_t>(parent.offset_of(payload));
  if (!seg.classes.empty())
    if (const EventClass cls = seg.classes.find(wire_id); cls != EventClass::None)
      pending_.push_back(Pending{static_cast<std::uint32_t>(out.size()), cls});
  out.emplace_back(offset_ps, duration_ps, id, offset);
  scan_offset_ = offset;
  tick();
}

}  // namespace oomscope::capture
