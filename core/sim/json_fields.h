#pragma once
// Typed access to JSON fields with messages that name the key (internal to core/sim). A FieldError
// carries only the problem; the caller adds the file and line.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/util/enum_names.h"
#include "core/util/error.h"

namespace oomscope::sim::detail {

using oomscope::EnumName;

struct FieldError {
  std::string message;
  ErrorKind kind = ErrorKind::Damaged;  // UnsupportedVersion for a header of a newer format
};

inline const nlohmann::json& field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) throw FieldError{"expected a JSON object"};
  auto it = j.find(key);
  if (it == j.end()) throw FieldError{std::string("missing field '") + key + "'"};
  return *it;
}

inline std::int64_t get_int(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  throw FieldError{std::string("field '") + key + "' must be an integer, got " + v.dump()};
}

inline std::uint64_t get_uint(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw FieldError{std::string("field '") + key + "' must be a non-negative integer, got " + v.dump()};
}

inline double get_number(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_number()) throw FieldError{std::string("field '") + key + "' must be a number, got " + v.dump()};
  return v.get<double>();
}

inline std::string get_string(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_string()) throw FieldError{std::string("field '") + key + "' must be a string, got " + v.dump()};
  return v.get<std::string>();
}

// An enum field read through its name table (core/util/enum_names.h); the error lists the table's names.
template <typename E, std::size_t N>
E get_enum(const nlohmann::json& j, const char* key, const EnumName<E> (&names)[N]) {
  const std::string s = get_string(j, key);
  const std::optional<E> v = parse_enum(names, s);
  if (!v)
    throw FieldError{std::string("field '") + key + "' is '" + s + "', expected " + enum_choices(names)};
  return *v;
}

}  // namespace oomscope::sim::detail

#include "core/sim/event.h"

namespace oomscope::sim {
// The inverses of totals_to_json / baselines_to_json; throw detail::FieldError.
Totals totals_from_json(const nlohmann::json& j);
Baselines baselines_from_json(const nlohmann::json& j);
}  // namespace oomscope::sim
