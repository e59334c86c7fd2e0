// Protocol v1 parsing and writing (see protocol.h).

#include "core/live/protocol/protocol.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace oomscope::live {

namespace {

using nlohmann::json;

struct TypeError {
  std::string message;
};

// An integer field: integers, and floats with an integral value (some writers emit 1.0e9). null = absent.
std::optional<std::int64_t> get_int(const json& obj, const char* key, const char* type) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX))
      throw TypeError{std::string(type) + " field '" + key + "' is out of range"};
    return static_cast<std::int64_t>(u);
  }
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  throw TypeError{std::string(type) + " field '" + key + "' should be an integer, not " +
                  it->dump().substr(0, 40)};
}

std::string get_string(const json& obj, const char* key, const char* type) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) throw TypeError{std::string(type) + " field '" + key + "' should be a string"};
  return it->get<std::string>();
}

std::int64_t require_t(const json& obj, const char* type) {
  const auto t = get_int(obj, "t", type);
  if (!t) throw TypeError{std::string(type) + " line has no 't' (unix nanoseconds)"};
  return *t;
}

Message parse_object(const json& obj, const std::string& type) {
  if (type == "sample") {
    Sample s;
    s.t = require_t(obj, "sample");
    for (std::size_t i = 0; i < kFieldCount; ++i)
      if (auto v = get_int(obj, kFieldNames[i].name, "sample")) s.set(static_cast<Field>(i), *v);
    return s;
  }
  if (type == "hello") {
    Hello h;
    const auto protocol = get_int(obj, "protocol", "hello");
    if (!protocol) throw TypeError{"hello line has no 'protocol' version"};
    h.protocol = static_cast<int>(*protocol);
    h.pid = get_int(obj, "pid", "hello").value_or(0);
    h.host = get_string(obj, "host", "hello");
    h.rank = static_cast<int>(get_int(obj, "rank", "hello").value_or(0));
    h.world_size = static_cast<int>(get_int(obj, "world_size", "hello").value_or(1));
    h.backend = get_string(obj, "backend", "hello");
    h.device = get_string(obj, "device", "hello");
    h.total_bytes = get_int(obj, "total_bytes", "hello").value_or(0);
    h.framework = get_string(obj, "framework", "hello");
    if (const auto it = obj.find("command"); it != obj.end() && !it->is_null()) {
      if (!it->is_array()) throw TypeError{"hello field 'command' should be an array of strings"};
      for (const auto& a : *it) h.command.push_back(a.is_string() ? a.get<std::string>() : a.dump());
    }
    return h;
  }
  if (type == "event") {
    Event e;
    e.t = require_t(obj, "event");
    e.kind = get_string(obj, "kind", "event");
    if (e.kind.empty()) throw TypeError{"event line has no 'kind'"};
    e.message = get_string(obj, "message", "event");
    e.path = get_string(obj, "path", "event");
    e.step = get_int(obj, "step", "event");
    return e;
  }
  if (type == "shapes") {
    Shapes s;
    s.t = require_t(obj, "shapes");
    s.distinct = get_int(obj, "distinct", "shapes").value_or(0);
    if (const auto it = obj.find("last"); it != obj.end() && !it->is_null()) {
      if (!it->is_array()) throw TypeError{"shapes field 'last' should be an array of integers"};
      for (const auto& d : *it) {
        if (!d.is_number_integer()) throw TypeError{"shapes field 'last' should hold integers only"};
        s.last.push_back(d.get<std::int64_t>());
      }
    }
    if (const auto it = obj.find("new"); it != obj.end() && !it->is_null()) {
      if (!it->is_array()) throw TypeError{"shapes field 'new' should be an array of shapes"};
      for (const auto& shape : *it) {
        if (!shape.is_array()) throw TypeError{"shapes field 'new' should hold arrays of integers"};
        std::vector<std::int64_t> dims;
        for (const auto& d : shape) {
          if (!d.is_number_integer()) throw TypeError{"shapes field 'new' should hold arrays of integers"};
          dims.push_back(d.get<std::int64_t>());
        }
        s.fresh.push_back(std::move(dims));
      }
    }
    return s;
  }
  if (type == "auth") return Auth{get_string(obj, "token", "auth")};
  if (type == "subscribe") {
    const auto ms = get_int(obj, "interval_ms", "subscribe");
    if (!ms || *ms < 1 || *ms > 3'600'000)
      throw TypeError{"subscribe needs 'interval_ms' between 1 and 3600000"};
    return Subscribe{static_cast<int>(*ms)};
  }
  return Unknown{type};
}

std::string dump_line(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  s.push_back('\n');
  return s;
}

}  // namespace

const char* field_name(Field f) noexcept { return enum_name(kFieldNames, f, "?"); }

std::optional<Field> field_from_name(std::string_view name) noexcept { return parse_enum(kFieldNames, name); }

bool field_is_bytes(Field f) noexcept {
  return f != Field::Step && f != Field::Micro && f != Field::AllocRetries && f != Field::Ooms;
}

ParseResult parse_line(std::string_view line) {
  ParseResult r;
  if (line.size() > kMaxLineBytes) {
    r.error = "line of " + std::to_string(line.size()) + " bytes is over the " +
              std::to_string(kMaxLineBytes) + "-byte limit";
    return r;
  }
  const json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    r.error = "line is not valid JSON";
    return r;
  }
  if (!j.is_object()) {
    r.error = "line is JSON but not an object";
    return r;
  }
  const auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    r.error = "line has no string 'type'";
    return r;
  }
  try {
    r.message = parse_object(j, type->get<std::string>());
  } catch (const TypeError& e) {
    r.error = e.message;
  } catch (const json::exception& e) {
    r.error = std::string("line has a wrong-typed value (") + e.what() + ")";
  }
  return r;
}

std::string write_line(const Hello& h) {
  json j = {{"type", "hello"},          {"protocol", h.protocol}, {"pid", h.pid},
            {"host", h.host},           {"rank", h.rank},         {"world_size", h.world_size},
            {"backend", h.backend},     {"device", h.device},     {"total_bytes", h.total_bytes},
            {"framework", h.framework}, {"command", h.command}};
  return dump_line(j);
}

std::string write_line(const Sample& s) {
  // Hand-written: the hot path of an agent (no allocation beyond the string).
  std::string out = "{\"type\":\"sample\",\"t\":" + std::to_string(s.t);
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (!s.has(static_cast<Field>(i))) continue;
    out += ",\"";
    out += kFieldNames[i].name;
    out += "\":";
    out += std::to_string(s.values[i]);
  }
  out += "}\n";
  return out;
}

std::string write_line(const Event& e) {
  json j = {{"type", "event"}, {"t", e.t}, {"kind", e.kind}, {"message", e.message}};
  if (!e.path.empty()) j["path"] = e.path;
  if (e.step) j["step"] = *e.step;
  return dump_line(j);
}

std::string write_line(const Shapes& s) {
  json j{{"type", "shapes"}, {"t", s.t}, {"distinct", s.distinct}, {"last", s.last}};
  if (!s.fresh.empty()) j["new"] = s.fresh;
  return dump_line(j);
}

std::string write_line(const Auth& a) { return dump_line(json{{"type", "auth"}, {"token", a.token}}); }

std::string write_line(const Subscribe& s) {
  return dump_line(json{{"type", "subscribe"}, {"interval_ms", s.interval_ms}});
}

}  // namespace oomscope::live
