// Argument checks against a tool's input schema (schema_check.h).

#include "core/mcp/schema_check.h"

#include <cmath>

namespace oomscope::mcp {

namespace {

std::string type_of(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

bool is_integer(const Json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

bool has_type(const Json& v, const std::string& type) {
  if (type == "integer") return is_integer(v);
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  return true;  // an unknown type name restricts nothing
}

// A value as JSON for a message, cut at 60 characters.
std::string show(const Json& v) {
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string named(const std::string& where) { return where.empty() ? "the arguments" : where; }

std::string child(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

std::optional<std::string> check_type(const Json& schema, const Json& value, const std::string& where) {
  const auto t = schema.find("type");
  if (t == schema.end()) return std::nullopt;
  std::string wanted;
  if (t->is_string()) {
    if (has_type(value, t->get<std::string>())) return std::nullopt;
    wanted = t->get<std::string>();
  } else if (t->is_array()) {
    for (const Json& one : *t) {
      if (one.is_string() && has_type(value, one.get<std::string>())) return std::nullopt;
      wanted += (wanted.empty() ? "" : " or ") + (one.is_string() ? one.get<std::string>() : one.dump());
    }
  } else {
    return std::nullopt;
  }
  return named(where) + ": expected " + wanted + ", got " + type_of(value);
}

std::optional<std::string> check_number(const Json& schema, const Json& value, const std::string& where) {
  if (!value.is_number()) return std::nullopt;
  const double x = value.get<double>();
  if (const auto m = schema.find("minimum"); m != schema.end() && m->is_number() && x < m->get<double>())
    return named(where) + ": " + show(value) + " is below the least allowed, " + m->dump();
  if (const auto m = schema.find("exclusiveMinimum");
      m != schema.end() && m->is_number() && !(x > m->get<double>()))
    return named(where) + ": " + show(value) + " must be more than " + m->dump();
  if (const auto m = schema.find("maximum"); m != schema.end() && m->is_number() && x > m->get<double>())
    return named(where) + ": " + show(value) + " is above the most allowed, " + m->dump();
  return std::nullopt;
}

std::optional<std::string> check_sizes(const Json& schema, const Json& value, const std::string& where) {
  const auto bound = [&](const char* key) -> std::optional<std::size_t> {
    const auto b = schema.find(key);
    if (b == schema.end() || !b->is_number_unsigned()) return std::nullopt;
    return b->get<std::size_t>();
  };
  if (value.is_string()) {
    const std::size_t n = value.get_ref<const std::string&>().size();
    if (const auto lo = bound("minLength"); lo && n < *lo)
      return named(where) + ": at least " + std::to_string(*lo) + " characters";
    if (const auto hi = bound("maxLength"); hi && n > *hi)
      return named(where) + ": at most " + std::to_string(*hi) + " characters";
  }
  if (value.is_array()) {
    if (const auto lo = bound("minItems"); lo && value.size() < *lo)
      return named(where) + ": at least " + std::to_string(*lo) + " items";
    if (const auto hi = bound("maxItems"); hi && value.size() > *hi)
      return named(where) + ": at most " + std::to_string(*hi) + " items";
  }
  return std::nullopt;
}

std::optional<std::string> check_object(const Json& schema, const Json& value, const std::string& where) {
  if (!value.is_object()) return std::nullopt;
  const auto props = schema.find("properties");
  if (const auto req = schema.find("required"); req != schema.end() && req->is_array())
    for (const Json& key : *req)
      if (key.is_string() && !value.contains(key.get<std::string>()))
        return named(where) + ": \"" + key.get<std::string>() + "\" is required";
  for (const auto& [key, item] : value.items()) {
    if (props != schema.end() && props->is_object() && props->contains(key)) {
      if (auto p = schema_problem((*props)[key], item, child(where, key))) return p;
    } else if (const auto extra = schema.find("additionalProperties");
               extra != schema.end() && extra->is_boolean() && !extra->get<bool>()) {
      return named(where) + ": unknown argument \"" + key + "\"";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> schema_problem(const Json& schema, const Json& value, const std::string& where) {
  if (!schema.is_object()) return std::nullopt;
  if (const auto any = schema.find("anyOf"); any != schema.end() && any->is_array() && !any->empty()) {
    std::optional<std::string> first;
    for (const Json& option : *any) {
      auto p = schema_problem(option, value, where);
      if (!p) {
        first.reset();
        break;
      }
      if (!first) first = std::move(p);
    }
    if (first) return first;
  }
  if (auto p = check_type(schema, value, where)) return p;
  if (const auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    std::string list;
    for (const Json& one : *e) {
      found = found || one == value;
      list += (list.empty() ? "" : ", ") + show(one);
    }
    if (!found) return named(where) + ": expected one of " + list + ", got " + show(value);
  }
  if (auto p = check_number(schema, value, where)) return p;
  if (auto p = check_sizes(schema, value, where)) return p;
  if (auto p = check_object(schema, value, where)) return p;
  if (const auto items = schema.find("items"); items != schema.end() && value.is_array())
    for (std::size_t i = 0; i < value.size(); ++i)
      if (auto p = schema_problem(*items, value[i], where + "[" + std::to_string(i) + "]")) return p;
  return std::nullopt;
}

}  // namespace oomscope::mcp
