#pragma once
// Reader bookkeeping a Capture keeps privately, and the stat decoding shared by the scan and
// Capture::event_stats().

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/capture/capture.h"
#include "core/capture/detail/xplane_fields.h"
#include "core/capture/wire_reader.h"

namespace oomscope::capture {

// One XPlane entry of the file. A plane may be written as several entries with the same name; they are
// merged into one Plane, but each entry keeps its own stat-metadata ids, which the raw event bytes use.
struct PlaneSegment {
  std::uint64_t begin = 0;  // byte range of the XPlane message in the file
  std::uint64_t end = 0;
  std::map<std::int64_t, std::string> stat_names;
};

struct CaptureInternals {
  std::vector<std::vector<PlaneSegment>> segments;  // per plane, in file order
};

// The bytes of an event's XEvent message in the mapping [base, base + size): the record keeps where they
// begin; their length is the varint just before them. Walking back from there is unambiguous: a varint's
// last byte is below 0x80 and its other bytes are not, so the length's bytes run back to the last byte of
// the field's tag (below 0x80). Empty when the bytes there no longer say so (a file that shrank).
inline std::string_view event_bytes(const std::uint8_t* base, std::uint64_t size, const EventRecord& ev) {
  const std::uint64_t begin = ev.offset();
  if (begin < 2 || begin > size || base[begin - 1] >= 0x80) return {};
  std::uint64_t first = begin - 1;
  while (first > 1 && begin - first < 10 && base[first - 1] >= 0x80) --first;
  std::uint64_t length = 0;
  for (std::uint64_t i = first; i < begin; ++i) length |= std::uint64_t{base[i] & 0x7fu} << (7 * (i - first));
  if (length > size - begin) return {};
  return {reinterpret_cast<const char*>(base + begin), static_cast<std::size_t>(length)};
}

// An event's duration_ps field read from its bytes (0 when it has none; the last one when repeated, as the
// scan takes it): for a record whose packed duration is not exact (EventRecord::duration_exact()).
inline std::int64_t event_duration_from_bytes(const std::uint8_t* base, std::string_view bytes) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(bytes.data());
  wire::WireReader r(base, b, b + bytes.size());
  std::int64_t duration = 0;
  try {
    while (!r.done()) {
      const wire::Field f = r.field();
      if (f.number == xf::XEvent::kDurationPsFieldNumber && f.type == wire::WireType::Varint)
        duration = wire::as_int64(r.varint());
      else
        r.skip(f.type);
    }
  } catch (const wire::WireError&) {
    // The scan walked these bytes already; should they read differently now, what was read stands.
  }
  return duration;
}

// WireReader::varint(), inline: false where that would throw (the number runs past `end` or is longer than
// 10 bytes), which leaves the error to WireReader.
inline bool quick_varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& value) {
  const std::uint8_t* q = p;
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (q >= end) return false;
    const std::uint8_t byte = *q++;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) {
      p = q;
      value = v;
      return true;
    }
  }
  return false;
}

// The per-event hot loop: walks the fields of a message that have one-byte tags and varint or
// length-delimited values (all an XLine, XEvent or XStat normally holds, doubles aside), calling
// on_varint(number, value) and on_len(number, payload). It stops at the first field it does not take
// (another wire type, a longer tag, bytes WireReader would reject) and returns where: the caller hands the
// rest to WireReader, which reads it, or reports the problem at the same offset and in the same words as
// it always has.
template <typename OnVarint, typename OnLen>
const std::uint8_t* quick_walk(const std::uint8_t* p, const std::uint8_t* end, OnVarint&& on_varint,
                               OnLen&& on_len) {
  while (p < end) {
    const std::uint8_t tag = *p;
    if (tag >= 0x80 || tag < 8) break;  // a longer tag, or field number 0
    const std::uint8_t* q = p + 1;
    std::uint64_t value = 0;
    if ((tag & 7) == 0) {
      if (!quick_varint(q, end, value)) break;
      on_varint(static_cast<std::uint32_t>(tag >> 3), value);
    } else if ((tag & 7) == 2) {
      if (!quick_varint(q, end, value) || value > static_cast<std::uint64_t>(end - q)) break;
      on_len(static_cast<std::uint32_t>(tag >> 3),
             std::string_view(reinterpret_cast<const char*>(q), static_cast<std::size_t>(value)));
      q += value;
    } else {
      break;
    }
    p = q;
  }
  return p;
}

// One XStat as it sits on the wire; strings and bytes are views into the mapping.
struct RawStat {
  enum class Kind : std::uint8_t { None, Int, Uint, Double, Str, Bytes, Ref };
  std::int64_t metadata_id = 0;
  Kind kind = Kind::None;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0.0;
  std::string_view s;
};

// Reads the fields of an XStat into s; inline, as the scan decodes a dozen stats of every allocator event.
inline void read_raw_stat_fields(wire::WireReader r, RawStat& s) {
  using wire::WireType;
  while (!r.done()) {
    const wire::Field f = r.field();
    // A field whose wire type does not match the schema is skipped like an unknown field, as protobuf does.
    switch (f.number) {
      case xf::XStat::kMetadataIdFieldNumber:
        if (f.type != WireType::Varint) break;
        s.metadata_id = wire::as_int64(r.varint());
        continue;
      case xf::XStat::kDoubleValueFieldNumber:
        if (f.type != WireType::Fixed64) break;
        s.kind = RawStat::Kind::Double;
        s.d = wire::as_double(r.fixed64());
        continue;
      case xf::XStat::kUint64ValueFieldNumber:
        if (f.type != WireType::Varint) break;
        s.kind = RawStat::Kind::Uint;
        s.u = r.varint();
        continue;
      case xf::XStat::kInt64ValueFieldNumber:
        if (f.type != WireType::Varint) break;
        s.kind = RawStat::Kind::Int;
        s.i = wire::as_int64(r.varint());
        continue;
      case xf::XStat::kStrValueFieldNumber:
      case xf::XStat::kBytesValueFieldNumber:
        if (f.type != WireType::Len) break;
        s.kind = f.number == xf::XStat::kStrValueFieldNumber ? RawStat::Kind::Str : RawStat::Kind::Bytes;
        s.s = r.bytes();
        continue;
      case xf::XStat::kRefValueFieldNumber:
        if (f.type != WireType::Varint) break;
        s.kind = RawStat::Kind::Ref;
        s.u = r.varint();
        continue;
      default:
        break;
    }
    r.skip(f.type);
  }
}

inline RawStat read_raw_stat(wire::WireReader r) {
  RawStat s;
  read_raw_stat_fields(r, s);
  return s;
}

// read_raw_stat(parent.sub(payload)), with the common fields read by quick_walk.
inline RawStat read_raw_stat_quick(const wire::WireReader& parent, std::string_view payload) {
  RawStat s;
  const auto on_varint = [&s](std::uint32_t number, std::uint64_t value) {
    switch (number) {
      case xf::XStat::kMetadataIdFieldNumber:
        s.metadata_id = wire::as_int64(value);
        break;
      case xf::XStat::kUint64ValueFieldNumber:
        s.kind = RawStat::Kind::Uint;
        s.u = value;
        break;
      case xf::XStat::kInt64ValueFieldNumber:
        s.kind = RawStat::Kind::Int;
        s.i = wire::as_int64(value);
        break;
      case xf::XStat::kRefValueFieldNumber:
        s.kind = RawStat::Kind::Ref;
        s.u = value;
        break;
      default:
        break;
    }
  };
  const auto on_len = [&s](std::uint32_t number, std::string_view bytes) {
    if (number != xf::XStat::kStrValueFieldNumber && number != xf::XStat::kBytesValueFieldNumber) return;
    s.kind = number == xf::XStat::kStrValueFieldNumber ? RawStat::Kind::Str : RawStat::Kind::Bytes;
    s.s = bytes;
  };
  const auto* begin = reinterpret_cast<const std::uint8_t*>(payload.data());
  const auto* end = begin + payload.size();
  const std::uint8_t* stopped = quick_walk(begin, end, on_varint, on_len);
  if (stopped != end)
    read_raw_stat_fields(parent.sub(std::string_view(reinterpret_cast<const char*>(stopped),
                                                     static_cast<std::size_t>(end - stopped))),
                         s);
  return s;
}

// Calls f(RawStat) for every stat of a message whose stats live in field `stats_field`.
template <typename F>
void for_each_raw_stat(wire::WireReader r, std::uint32_t stats_field, F&& f) {
  const std::uint8_t* stopped = quick_walk(
      r.pos(), r.end(), [](std::uint32_t, std::uint64_t) {},
      [&](std::uint32_t number, std::string_view bytes) {
        if (number == stats_field) f(read_raw_stat_quick(r, bytes));
      });
  r = r.sub(
      std::string_view(reinterpret_cast<const char*>(stopped), static_cast<std::size_t>(r.end() - stopped)));
  while (!r.done()) {
    const wire::Field field = r.field();
    if (field.number == stats_field && field.type == wire::WireType::Len)
      f(read_raw_stat(r.sub(r.bytes())));
    else
      r.skip(field.type);
  }
}

// The string of a str/ref stat ("" otherwise); refs resolve through the entry's stat names.
std::string_view raw_stat_string(const RawStat& s, const std::map<std::int64_t, std::string>& names);

// A double as int64, truncated and clamped to the int64 range; nullopt for NaN.
inline std::optional<std::int64_t> saturating_to_int(double d) {
  if (std::isnan(d)) return std::nullopt;
  if (d >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (d <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(d);
}

inline std::optional<std::int64_t> raw_stat_int(const RawStat& s) {
  switch (s.kind) {
    case RawStat::Kind::Int:
      return s.i;
    case RawStat::Kind::Uint:
      return static_cast<std::int64_t>(s.u);  // keeps the 64 bits (addresses)
    case RawStat::Kind::Double:
      return saturating_to_int(s.d);
    default:
      return std::nullopt;
  }
}

inline std::optional<double> raw_stat_double(const RawStat& s) {
  switch (s.kind) {
    case RawStat::Kind::Int:
      return static_cast<double>(s.i);
    case RawStat::Kind::Uint:
      return static_cast<double>(s.u);
    case RawStat::Kind::Double:
      return s.d;
    default:
      return std::nullopt;
  }
}

Stat to_stat(const RawStat& s, const std::map<std::int64_t, std::string>& names);

// a + b, clamped to the int64 range: byte figures from a damaged or hostile file must not overflow.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

}  // namespace oomscope::capture
