// The MCP server's dispatch (server.h).

#include "core/mcp/server.h"

#include <new>
#include <utility>

#include "core/mcp/call_progress.h"
#include "core/mcp/schema_check.h"
#include "core/util/error.h"

namespace oomscope::mcp {

namespace {

Json text_result(const std::string& text, bool is_error) {
  return Json{{"content", Json::array({Json{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
}

// What a tool's function gives, or what it threw, as a tools/call result.
Json run_tool(const Tool& tool, const Json& arguments, ToolContext& context) {
  try {
    ToolResult r = tool.run(arguments, context);
    Json result = text_result(r.text, r.is_error);
    if (r.structured.is_object()) result["structuredContent"] = std::move(r.structured);
    return result;
  } catch (const ToolError& e) {
    return text_result(e.what(), true);
  } catch (const Cancelled&) {
    return text_result("cancelled: the server is shutting down", true);
  } catch (const Error& e) {
    return text_result(e.what(), true);
  } catch (const std::bad_alloc&) {
    return text_result("out of memory", true);
  } catch (const std::exception& e) {
    return text_result(std::string("internal error: ") + e.what(), true);
  }
}

}  // namespace

Server::Server(ServerInfo info, std::vector<Tool> tools, OutputChannel& out, std::size_t max_calls)
    : info_(std::move(info)), tools_(std::move(tools)), out_(out), calls_(max_calls) {}

Server::~Server() { calls_.stop_all(); }

void Server::serve(LineReader& in) {
  std::string line;
  for (;;) {
    const LineReader::Status s = in.next(line);
    if (s == LineReader::Status::End) break;
    if (s == LineReader::Status::TooLong) {
      fail(nullptr, kInvalidRequest,
           "the message is longer than " + std::to_string(in.max_line()) + " bytes and was skipped");
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines carry nothing
    handle_line(line);
  }
  calls_.stop_all();
}

void Server::handle_line(std::string_view line) {
  const Incoming in = classify(line);
  switch (in.kind) {
    case Incoming::Kind::Invalid:
      fail(in.id, in.error_code, in.error_message);
      break;
    case Incoming::Kind::Request:
      on_request(in);
      break;
    case Incoming::Kind::Notification:
      on_notification(in);
      break;
    case Incoming::Kind::Response:
      break;  // this server sends no requests, so no answer is awaited
  }
}

void Server::answer(const Json& id, Json result) { out_.send(make_result(id, std::move(result))); }

void Server::fail(const Json& id, int code, const std::string& message) {
  out_.send(make_error(id, code, message));
}

bool Server::structured_errors() const {
  std::lock_guard lock(state_mutex_);
  return version_ >= "2025-11-25";
}

void Server::on_request(const Incoming& in) {
  const Json params = in.params.is_object() ? in.params : Json::object();
  if (in.method == "ping") return answer(in.id, Json::object());
  if (in.method == "initialize") {
    int code = 0;
    std::string message;
    Json result = initialize(params, code, message);
    if (code != 0) return fail(in.id, code, message);
    return answer(in.id, std::move(result));
  }
  {
    std::lock_guard lock(state_mutex_);
    if (!initialized_)
      return fail(in.id, kInvalidRequest, "the session is not initialized: send initialize first");
  }
  if (in.method == "tools/list") {
    if (params.contains("cursor"))
      return fail(in.id, kInvalidParams, "unknown cursor: the list has one page");
    return answer(in.id, list_tools(params));
  }
  if (in.method == "tools/call") return call_tool(in);
  fail(in.id, kMethodNotFound, "method not found: " + in.method);
}

void Server::on_notification(const Incoming& in) {
  if (in.method == "notifications/cancelled") {
    const auto id = in.params.is_object() ? in.params.find("requestId") : in.params.end();
    if (in.params.is_object() && id != in.params.end() && (id->is_string() || id->is_number_integer()))
      calls_.cancel(id_key(*id));
  }
  // notifications/initialized and anything else need nothing from us; unknown ones are ignored.
}

Json Server::initialize(const Json& params, int& code, std::string& message) {
  const auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    code = kInvalidParams;
    message = "initialize needs a protocolVersion string";
    return nullptr;
  }
  std::string version = kProtocolVersions[0];
  for (const char* v : kProtocolVersions)
    if (*requested == v) version = v;
  {
    std::lock_guard lock(state_mutex_);
    if (initialized_) {
      code = kInvalidRequest;
      message = "the session is already initialized";
      return nullptr;
    }
    initialized_ = true;
    version_ = version;
  }
  Json server{{"name", info_.name}, {"title", info_.title}, {"version", info_.version}};
  Json result{{"protocolVersion", version},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", std::move(server)}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

Json Server::list_tools(const Json&) const {
  Json list = Json::array();
  for (const Tool& t : tools_) {
    Json one{{"name", t.name},
             {"title", t.title},
             {"description", t.description},
             {"inputSchema", t.input_schema}};
    if (!t.output_schema.is_null()) one["outputSchema"] = t.output_schema;
    if (!t.annotations.is_null()) one["annotations"] = t.annotations;
    list.push_back(std::move(one));
  }
  return Json{{"tools", std::move(list)}};
}

void Server::call_tool(const Incoming& in) {
  const Json& params = in.params;
  const auto name = params.is_object() ? params.find("name") : params.end();
  if (!params.is_object() || name == params.end() || !name->is_string())
    return fail(in.id, kInvalidParams, "tools/call needs the tool's name as a string");
  const Tool* tool = nullptr;
  for (const Tool& t : tools_)
    if (*name == t.name) tool = &t;
  if (!tool) return fail(in.id, kInvalidParams, "Unknown tool: " + name->get<std::string>());
  Json arguments = Json::object();
  if (const auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) return fail(in.id, kInvalidParams, "the arguments of a tool call must be an object");
    arguments = *a;
  }
  if (auto problem = schema_problem(tool->input_schema, arguments, "")) {
    if (!structured_errors()) return fail(in.id, kInvalidParams, "invalid arguments: " + *problem);
    return answer(in.id, text_result("invalid arguments: " + *problem, true));
  }
  Json token;
  if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object())
    if (const auto t = meta->find("progressToken");
        t != meta->end() && (t->is_string() || t->is_number_integer()))
      token = *t;
  const Json id = in.id;
  const CallRegistry::Start started =
      calls_.start(id_key(id), [this, tool, id, arguments = std::move(arguments), token](
                                   std::stop_token stop, const std::function<bool()>& cancelled) {
        CallProgress progress(out_, token);
        ToolContext context{progress, std::move(stop)};
        Json result = run_tool(*tool, arguments, context);
        if (cancelled()) return std::function<void()>();  // a cancelled call is not answered
        return std::function<void()>(
            [this, id, result = std::move(result)]() mutable { answer(id, std::move(result)); });
      });
  if (started == CallRegistry::Start::DuplicateId)
    return fail(id, kInvalidRequest, "request id " + id.dump() + " is already in use by a running call");
  if (started == CallRegistry::Start::Busy)
    answer(id, text_result("busy: " + std::to_string(calls_.max_running()) +
                               " tool calls are running; wait for one to finish or cancel one",
                           true));
}

}  // namespace oomscope::mcp
