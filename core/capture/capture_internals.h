#pragma once
// Reader bookkeeping a Capture keeps privately, and the stat decoding shared by the scan and
// Capture::event_stats().

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/capture/capture.h"
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

RawStat read_raw_stat(wire::WireReader r);

// Calls f(RawStat) for every stat of a message whose stats live in field `stats_field`.
template <typename F>
void for_each_raw_stat(wire::WireReader r, std::uint32_t stats_field, F&& f) {
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
std::optional<std::int64_t> raw_stat_int(const RawStat& s);
std::optional<double> raw_stat_double(const RawStat& s);

Stat to_stat(const RawStat& s, const std::map<std::int64_t, std::string>& names);

// a + b, clamped to the int64 range: byte figures from a damaged or hostile file must not overflow.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

}  // namespace oomscope::capture
