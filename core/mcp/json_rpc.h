#pragma once
// JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, UTF-8 JSON, no batches (MCP
// 2025-06-18 removed them). classify() turns a line into a request, a notification or a response, or says
// what error the sender gets back; the builders write the answers. docs/mcp.md lists the codes used.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace oomscope::mcp {

using Json = nlohmann::ordered_json;

// The JSON-RPC 2.0 error codes (the specification's reserved range).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// Deeper nesting than this is refused before parsing (no MCP message needs it; it keeps a hostile line
// from costing a deep recursion anywhere later).
inline constexpr std::size_t kMaxDepth = 64;

struct Incoming {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  Json id;  // a request's id (string or integer); null when unknown
  std::string method;
  Json params;  // an object, or null when absent
  // Invalid: the code and message to answer with (id as far as it could be read, else null).
  int error_code = 0;
  std::string error_message;
};

Incoming classify(std::string_view line);

// {"jsonrpc":"2.0","id":id,"result":result}
Json make_result(const Json& id, Json result);
// {"jsonrpc":"2.0","id":id,"error":{"code","message"}}
Json make_error(const Json& id, int code, const std::string& message);
// {"jsonrpc":"2.0","method":method,"params":params}
Json make_notification(const std::string& method, Json params);

// A request id as a map key: "s:" + string or "n:" + integer, so "1" and 1 stay apart.
std::string id_key(const Json& id);

}  // namespace oomscope::mcp
