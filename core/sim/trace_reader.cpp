// Reading a JSON-lines trace (simulator or real trainer) with errors that name the file and the line.

#include "core/sim/trace_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>

#include "core/sim/json_fields.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::sim {

using nlohmann::json;
using namespace detail;

namespace {

TraceHeader parse_header(const json& j) {
  TraceHeader h;
  h.format = get_string(j, "format");
  if (h.format != kTraceFormat)
    throw FieldError{"format is '" + h.format + "', expected '" + kTraceFormat + "'"};
  h.version = static_cast<int>(get_int(j, "version"));
  if (h.version < 1 || h.version > kTraceVersion)
    throw FieldError{"format version " + std::to_string(h.version) +
                         " is not supported (this build reads 1.." + std::to_string(kTraceVersion) +
                         "; a newer oomscope wrote it?)",
                     ErrorKind::UnsupportedVersion};
  h.source = get_string(j, "source");
  if (j.contains("seed")) h.seed = get_uint(j, "seed");
  h.config = field(j, "config");
  if (!h.config.is_object()) throw FieldError{"field 'config' must be an object"};
  return h;
}

void parse_event(const json& j, EventLog& log, std::int64_t expected) {
  Event e;
  e.id = get_int(j, "id");
  if (e.id != expected)
    throw FieldError{"event id " + std::to_string(e.id) + " out of order (expected " +
                     std::to_string(expected) + ")"};
  e.parent = get_int(j, "parent");
  if (e.parent < -1 || e.parent >= e.id)
    throw FieldError{"parent " + std::to_string(e.parent) + " is not an earlier event"};
  e.step = get_int(j, "step");
  e.epoch = get_int(j, "epoch");
  e.batch = get_int(j, "batch");
  e.depth = static_cast<std::int32_t>(get_int(j, "depth"));
  e.origin = get_enum(j, "origin", kOriginNames);
  e.outcome = get_enum(j, "outcome", kOutcomeNames);
  const json& scenes = field(j, "scenes");
  if (!scenes.is_array()) throw FieldError{"field 'scenes' must be an array of scene ids"};
  e.scenes_offset = static_cast<std::uint32_t>(log.scene_ids.size());
  for (const auto& s : scenes) {
    if (!s.is_number_integer() || s.get<std::int64_t>() < 0 || s.get<std::int64_t>() > 0xffffffffLL)
      throw FieldError{"field 'scenes' holds " + s.dump() + ", not a scene id"};
    log.scene_ids.push_back(s.get<std::uint32_t>());
  }
  e.scenes_count = static_cast<std::uint32_t>(scenes.size());
  e.points = get_int(j, "points");
  if (e.points < 0) throw FieldError{"field 'points' is negative"};
  const json& box = field(j, "bbox");
  if (!box.is_array() || box.size() != 6)
    throw FieldError{"field 'bbox' must be [min x, min y, min z, max x, max y, max z]"};
  for (int i = 0; i < 6; ++i) {
    if (!box[static_cast<std::size_t>(i)].is_number()) throw FieldError{"field 'bbox' holds a non-number"};
    const auto v = box[static_cast<std::size_t>(i)].get<double>();
    if (!(std::fabs(v) <= double(std::numeric_limits<float>::max())))
      throw FieldError{"field 'bbox' holds " + box[static_cast<std::size_t>(i)].dump() +
                       ", out of float range"};
    (i < 3 ? e.bbox.lo[i] : e.bbox.hi[i - 3]) = static_cast<float>(v);
  }
  const json& axis = field(j, "axis");
  if (axis.is_null()) {
    e.axis = -1;
  } else {
    const std::string a = axis.is_string() ? axis.get<std::string>() : axis.dump();
    if (a != "x" && a != "y" && a != "z")
      throw FieldError{"field 'axis' is " + axis.dump() + ", expected x, y, z or null"};
    e.axis = static_cast<std::int8_t>(a[0] - 'x');
    e.split_value = get_number(j, "split");
  }
  e.bytes_needed = get_int(j, "bytes_needed");
  e.budget = get_int(j, "budget");
  e.available = get_int(j, "available");
  e.start_ns = get_int(j, "start_ns");
  e.duration_ns = get_int(j, "duration_ns");
  if (e.duration_ns < 0) throw FieldError{"field 'duration_ns' is negative"};
  if (j.contains("loss_scale")) {
    e.loss_scale = get_number(j, "loss_scale");
    if (!(e.loss_scale >= 0 && e.loss_scale <= 1)) throw FieldError{"field 'loss_scale' must be in 0..1"};
  } else {
    e.loss_scale = e.outcome == Outcome::Ok ? 1.0 : 0.0;
  }
  log.events.push_back(e);
}

// One line without its '\n', of at most kMaxLineBytes: a damaged file (a binary, one giant line) is refused
// rather than read into memory whole. Returns false at the end of the input with nothing read.
constexpr std::size_t kMaxLineBytes = 64u << 20;

bool read_line(std::istream& in, std::string& line) {
  line.clear();
  bool any = false;
  char buf[1 << 14];
  for (;;) {
    in.get(buf, sizeof buf, '\n');  // stops before '\n'; failbit when it extracted nothing
    const auto n = in.gcount();
    if (n > 0) {
      any = true;
      line.append(buf, static_cast<std::size_t>(n));
      if (line.size() > kMaxLineBytes)
        throw FieldError{"line longer than 64 MiB: not a trace (each event is one short line)"};
    }
    if (in.eof()) return any;
    if (in.fail() && !in.bad()) in.clear();
    const int c = in.get();
    if (c == '\n') return true;
    if (c == std::char_traits<char>::eof()) return any;
    in.unget();  // the buffer was full: the line goes on
  }
}

}  // namespace

Trace read_trace(std::istream& in, const std::string& name, std::int64_t max_events) {
  Trace trace;
  EventLog scratch;  // events past max_events: parsed and checked one at a time
  std::int64_t events = 0;
  std::string line;
  std::size_t line_no = 0;
  bool have_header = false;
  for (;;) {
    try {
      if (!read_line(in, line)) break;
    } catch (const FieldError& e) {
      throw Error(ErrorKind::Damaged, name, "line " + std::to_string(line_no + 1) + ": " + e.message);
    }
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      if (trace.totals) throw FieldError{"unexpected line after the totals line"};
      json j;
      try {
        j = json::parse(line);
      } catch (const json::exception& e) {  // a syntax error, or a number too large for a double (1e999)
        throw FieldError{std::string("not valid JSON (") + e.what() + ")"};
      }
      const std::string type = get_string(j, "type");
      if (!have_header) {
        if (type != "header")
          throw FieldError{"the first line must be the header, found a '" + type + "' line"};
        trace.header = parse_header(j);
        have_header = true;
      } else if (type == "event") {
        if (max_events < 0 || events < max_events) {
          parse_event(j, trace.log, events);
        } else {
          scratch.clear();
          parse_event(j, scratch, events);
          trace.events_not_kept++;
        }
        ++events;
      } else if (type == "totals") {
        trace.totals = totals_from_json(j);
        if (j.contains("baselines")) trace.baselines = baselines_from_json(j["baselines"]);
      } else {
        throw FieldError{"unknown line type '" + type + "'"};
      }
    } catch (const FieldError& e) {
      throw Error(e.kind, name, "line " + std::to_string(line_no) + ": " + e.message);
    }
  }
  if (in.bad()) throw Error(ErrorKind::Io, name, "read error after line " + std::to_string(line_no));
  if (!have_header) throw Error(ErrorKind::Empty, name, "no trace header (the file is empty)");
  return trace;
}

Trace read_trace_file(const std::string& path, std::int64_t max_events) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorKind::NotFound, path, "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::NotAFile, path, "is a directory, not a trace");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the trace");
  char magic[2] = {0, 0};
  in.read(magic, 2);
  if (is_gzip(std::string_view(magic, static_cast<std::size_t>(in.gcount()))))
    throw Error(ErrorKind::Gzip, path, "is gzip-compressed; decompress it first (gunzip)");
  in.clear();
  in.seekg(0);
  return read_trace(in, path, max_events);
}

}  // namespace oomscope::sim
