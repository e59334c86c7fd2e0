#pragma once
// An MCP server over newline-delimited JSON-RPC 2.0 (the stdio transport): the lifecycle (initialize with
// protocol version negotiation, notifications/initialized, ping), tools (tools/list, tools/call with
// progress and cancellation) and the answers JSON-RPC prescribes for everything else. Tool calls run on
// worker threads (call_registry.h); everything else is answered on the reading thread at once. docs/mcp.md
// describes what a client sees.

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/mcp/call_registry.h"
#include "core/mcp/json_rpc.h"
#include "core/mcp/line_reader.h"
#include "core/mcp/output_channel.h"
#include "core/mcp/tool.h"

namespace oomscope::mcp {

// Protocol revisions this server speaks, newest first; a client asking for another gets the newest.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

struct ServerInfo {
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;  // sent in the initialize result: what the server is for, in a few sentences
};

class Server {
 public:
  Server(ServerInfo info, std::vector<Tool> tools, OutputChannel& out, std::size_t max_calls = 4);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Reads messages until the end of input, then stops the calls still running and waits for them.
  void serve(LineReader& in);
  // One message (a line without its newline).
  void handle_line(std::string_view line);

 private:
  void on_request(const Incoming& in);
  void on_notification(const Incoming& in);
  Json initialize(const Json& params, int& code, std::string& message);  // code != 0: refused
  Json list_tools(const Json& params) const;
  void call_tool(const Incoming& in);
  void answer(const Json& id, Json result);
  void fail(const Json& id, int code, const std::string& message);
  bool structured_errors() const;  // argument errors as isError results (2025-11-25), else -32602

  ServerInfo info_;
  std::vector<Tool> tools_;
  OutputChannel& out_;
  CallRegistry calls_;
  mutable std::mutex state_mutex_;
  bool initialized_ = false;
  std::string version_;  // negotiated
};

}  // namespace oomscope::mcp
