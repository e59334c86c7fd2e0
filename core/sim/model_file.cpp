// Reading the calibrated model file (docs/sim-model-format.md).

#include "core/sim/model_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"

namespace oomscope::sim {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw Error(ErrorKind::InvalidArgument, name, what);
}

const json& required(const json& j, const char* key, const std::string& name) {
  const auto it = j.find(key);
  if (it == j.end()) bad(name, std::string("missing key '") + key + "'");
  return *it;
}

double number(const json& j, const char* key, const std::string& name, double max) {
  const json& v = required(j, key, name);
  if (!v.is_number()) bad(name, std::string("key '") + key + "' must be a number, got " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > max)
    bad(name,
        std::string("key '") + key + "' is " + v.dump() + ", out of range (0 to " + json(max).dump() + ")");
  return x;
}

}  // namespace

CalibratedModel parse_model_json(const json& j, const std::string& name) {
  if (!j.is_object()) bad(name, "a model file must be a JSON object, got " + std::string(j.type_name()));
  const json& format = required(j, "format", name);
  if (!format.is_string() || format.get<std::string>() != kModelFormat)
    bad(name, std::string("key 'format' must be \"") + kModelFormat + "\", got " + format.dump());
  const json& version = required(j, "version", name);
  if (!version.is_number_integer()) bad(name, "key 'version' must be an integer, got " + version.dump());
  if (version.get<std::int64_t>() != kModelVersion)
    bad(name, "model file version " + version.dump() + " is not supported (this build reads version 1)");

  CalibratedModel m;
  const json& fixed = required(j, "fixed_bytes", name);
  if (!fixed.is_number_integer()) bad(name, "key 'fixed_bytes' must be an integer, got " + fixed.dump());
  if (fixed.is_number_unsigned()
          ? fixed.get<std::uint64_t>() > (std::uint64_t{1} << 60)
          : (fixed.get<std::int64_t>() < 0 || fixed.get<std::int64_t>() > (std::int64_t{1} << 60)))
    bad(name, "key 'fixed_bytes' is " + fixed.dump() + ", out of range (0 to 1 EiB)");
  m.fixed_bytes = fixed.get<std::int64_t>();
  m.bytes_per_point = number(j, "bytes_per_point", name, double(1 << 20));
  if (m.bytes_per_point <= 0)
    bad(name, "key 'bytes_per_point' must be > 0, got " + j["bytes_per_point"].dump());
  m.time_fixed_s = number(j, "time_fixed_s", name, 3600.0);
  m.time_per_point_s = number(j, "time_per_point_s", name, 1e-3);
  for (const auto& [key, value] : j.items()) {
    if (key == "format" || key == "version" || key == "fixed_bytes" || key == "bytes_per_point" ||
        key == "time_fixed_s" || key == "time_per_point_s")
      continue;
    m.extra[key] = value;
  }
  return m;
}

CalibratedModel parse_model(std::string_view text, const std::string& name) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // also a number too large for a double
    bad(name, std::string("not JSON: ") + e.what());
  }
  return parse_model_json(j, name);
}

CalibratedModel read_model_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorKind::NotFound, path, "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::Io, path, "is a directory, not a model file");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > (16u << 20))
    throw Error(ErrorKind::TooLarge, path, "a model file is a few hundred bytes; this one is over 16 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the model file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.empty()) throw Error(ErrorKind::Empty, path, "the model file is empty");
  return parse_model(text, path);
}

void apply_model(const CalibratedModel& model, SimConfig& config) {
  config.memory.fixed_bytes = model.fixed_bytes;
  config.memory.bytes_per_point = std::max<std::int64_t>(1, std::llround(model.bytes_per_point));
  config.time.fixed_ns_per_attempt = std::llround(model.time_fixed_s * 1e9);
  const double ps = model.time_per_point_s * 1e12;
  config.time.forward_ps_per_point = std::llround(ps * 0.35);
  config.time.backward_ps_per_point = std::llround(ps) - config.time.forward_ps_per_point;
}

json model_to_json(const CalibratedModel& m) {
  json j = m.extra;
  j["format"] = kModelFormat;
  j["version"] = kModelVersion;
  j["fixed_bytes"] = m.fixed_bytes;
  j["bytes_per_point"] = m.bytes_per_point;
  j["time_fixed_s"] = m.time_fixed_s;
  j["time_per_point_s"] = m.time_per_point_s;
  return j;
}

}  // namespace oomscope::sim
