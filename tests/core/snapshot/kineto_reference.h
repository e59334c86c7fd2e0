#pragma once
// The Kineto reader's JSON side as it was before JsonPull: an nlohmann::json DOM parse with a callback that
// drops every event but [memory] and [OutOfMemory]. Kept here, in the tests only, as the reference that
// JsonPull's reader must match on every input (kineto_json_test.cpp): the same verdict (valid or not, a
// Chrome trace or not) and the same events, figure for figure.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace oomscope::snapshot::reference {

struct Event {
  double ts = 0;
  std::int64_t bytes = 0, total_allocated = -1, total_reserved = -1, addr = 0;
  bool has_addr = false, oom = false;
};

struct Result {
  enum { Ok, NotJson, NotATrace } verdict = Ok;
  std::size_t events = 0, memory_events = 0, oom_events = 0;
  double base_time_ns = 0;
  std::vector<std::string> gpus;
  std::map<std::pair<int, std::int64_t>, std::vector<Event>> groups;  // in file order
};

inline std::int64_t int_arg(const nlohmann::json& args, const char* key, std::int64_t fallback) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return fallback;
  return it->is_number_float() ? static_cast<std::int64_t>(it->get<double>()) : it->get<std::int64_t>();
}

inline Result read(const std::string& text) {
  using nlohmann::json;
  Result r;
  std::size_t p = text.find_first_not_of(" \t\r\n");
  const bool array_form = p != std::string::npos && text[p] == '[';
  const int event_depth = array_form ? 1 : 2;
  std::string top_key;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) -> bool {
    if (ev == json::parse_event_t::key && depth == 1 && !array_form) {
      top_key = parsed.get<std::string>();
      return true;
    }
    if (ev != json::parse_event_t::object_end || depth != event_depth) return true;
    if (!array_form && top_key != "traceEvents") {
      if (top_key == "deviceProperties" && parsed.contains("name") && parsed["name"].is_string())
        r.gpus.push_back(parsed["name"].get<std::string>());
      return true;
    }
    ++r.events;
    auto n = parsed.find("name");
    if (n == parsed.end() || !n->is_string()) return false;
    const std::string& nm = n->get_ref<const std::string&>();
    const bool mem = nm == "[memory]", oom = nm == "[OutOfMemory]";
    if (!mem && !oom) return false;
    auto a = parsed.find("args");
    if (a == parsed.end() || !a->is_object()) return false;
    Event e;
    auto ts = parsed.find("ts");
    e.ts = ts != parsed.end() && ts->is_number() ? ts->get<double>() : 0.0;
    e.bytes = int_arg(*a, "Bytes", 0);
    e.total_allocated = int_arg(*a, "Total Allocated", -1);
    e.total_reserved = int_arg(*a, "Total Reserved", -1);
    if (a->contains("Addr")) e.has_addr = true, e.addr = int_arg(*a, "Addr", 0);
    e.oom = oom;
    (mem ? r.memory_events : r.oom_events)++;
    r.groups[{static_cast<int>(int_arg(*a, "Device Type", 0)), int_arg(*a, "Device Id", -1)}].push_back(e);
    return false;
  };
  json root;
  try {
    root = json::parse(text, cb);
  } catch (const json::exception&) {
    r.verdict = Result::NotJson;
    return r;
  }
  if (!array_form && (!root.is_object() || !root.contains("traceEvents"))) {
    r.verdict = Result::NotATrace;
    return r;
  }
  if (root.is_object()) {
    auto base = root.find("baseTimeNanoseconds");
    if (base != root.end() && base->is_number()) r.base_time_ns = base->get<double>();
  }
  return r;
}

}  // namespace oomscope::snapshot::reference
