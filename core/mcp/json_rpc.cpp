// JSON-RPC 2.0 messages (json_rpc.h).

#include "core/mcp/json_rpc.h"

namespace oomscope::mcp {

namespace {

// The deepest nesting of arrays and objects in `text`, outside strings; stops counting past the limit.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxDepth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Incoming invalid(Json id, int code, std::string message) {
  Incoming in;
  in.id = std::move(id);
  in.error_code = code;
  in.error_message = std::move(message);
  return in;
}

bool valid_id(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

Incoming classify(std::string_view line) {
  if (nesting_depth(line) > kMaxDepth)
    return invalid(
        nullptr, kInvalidRequest,
        "the message nests arrays or objects deeper than " + std::to_string(kMaxDepth) + " levels");
  Json msg = Json::parse(line, nullptr, false);
  if (msg.is_discarded()) return invalid(nullptr, kParseError, "the line is not valid JSON");
  if (msg.is_array())
    return invalid(nullptr, kInvalidRequest,
                   "batches (JSON arrays) are not part of MCP; send one message a line");
  if (!msg.is_object()) return invalid(nullptr, kInvalidRequest, "a JSON-RPC message is a JSON object");
  const auto id_at = msg.find("id");
  const bool has_id = id_at != msg.end();
  const Json id = has_id && valid_id(*id_at) ? *id_at : Json(nullptr);
  const auto version = msg.find("jsonrpc");
  if (version == msg.end() || *version != "2.0")
    return invalid(id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  const auto method = msg.find("method");
  if (method == msg.end()) {
    if (has_id && (msg.contains("result") || msg.contains("error"))) {
      Incoming in;
      in.kind = Incoming::Kind::Response;
      in.id = id;
      return in;
    }
    return invalid(id, kInvalidRequest, "the message has no \"method\"");
  }
  if (!method->is_string()) return invalid(id, kInvalidRequest, "\"method\" must be a string");
  if (has_id && !valid_id(*id_at))
    return invalid(nullptr, kInvalidRequest, "a request id must be a string or an integer");
  Incoming in;
  in.kind = has_id ? Incoming::Kind::Request : Incoming::Kind::Notification;
  in.id = id;
  in.method = method->get<std::string>();
  if (const auto params = msg.find("params"); params != msg.end()) {
    if (params->is_object())
      in.params = std::move(*params);
    else if (has_id)  // a notification is never answered; its bad params are dropped
      return invalid(id, kInvalidParams, "\"params\" must be an object");
  }
  return in;
}

Json make_result(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json make_notification(const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string id_key(const Json& id) {
  return id.is_string() ? "s:" + id.get<std::string>() : "n:" + id.dump();
}

}  // namespace oomscope::mcp
