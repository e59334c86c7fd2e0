// The MCP server with tools made for the test: lifecycle, argument checks per revision, a call answered
// during a long one, cancellation (no answer, the slot freed), progress (core/mcp/server.h).

#include "core/mcp/server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/mcp/line_reader.h"
#include "core/mcp/output_channel.h"
#include "core/mcp/schema_check.h"
#include "core/util/error.h"

namespace oomscope::mcp {
namespace {

std::vector<Tool> test_tools() {
  Tool echo;
  echo.name = "echo";
  echo.input_schema = Json::parse(R"({"type":"object","properties":{"n":{"type":"integer","minimum":1}},
                                      "required":["n"],"additionalProperties":false})");
  echo.run = [](const Json& args, ToolContext&) { return ToolResult{"echo", Json{{"n", args["n"]}}, false}; };
  Tool slow;  // runs until stopped, reporting progress
  slow.name = "slow";
  slow.input_schema = Json{{"type", "object"}};
  slow.run = [](const Json&, ToolContext& ctx) -> ToolResult {
    for (int i = 0; i < 4000; ++i) {  // 20 s unless stopped; one percent a step for the first 100
      if (ctx.stop.stop_requested()) throw Cancelled();
      ctx.progress.report(std::min(i, 100) / 100.0, "waiting");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return ToolResult{"done", Json{{"done", true}}, false};
  };
  Tool bad;
  bad.name = "bad";
  bad.input_schema = Json{{"type", "object"}};
  bad.run = [](const Json&, ToolContext&) -> ToolResult {
    throw Error(ErrorKind::NotFound, "/x.pb", "no such file");
  };
  return {echo, slow, bad};
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(fds_), 0);
    out_ = std::make_unique<OutputChannel>(fds_[1]);
    server_ = std::make_unique<Server>(ServerInfo{"t", "t", "0", ""}, test_tools(), *out_, 1);
    reader_ = std::make_unique<LineReader>(fds_[0], 1 << 20);
  }
  void TearDown() override {
    server_.reset();
    ::close(fds_[1]);
    ::close(fds_[0]);
  }
  Json next() {
    std::string line;
    EXPECT_EQ(reader_->next(line), LineReader::Status::Line);
    return Json::parse(line);
  }
  // The answer to `id`, skipping (and keeping) anything else.
  Json reply(const Json& id) {
    for (;;) {
      Json m = next();
      if (m.contains("id") && m["id"] == id && !m.contains("method")) return m;
      other_.push_back(std::move(m));
    }
  }
  Json request(int id, const std::string& method, const Json& params) {
    server_->handle_line(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
    return reply(id);
  }
  void init(const std::string& version) {
    const Json r = request(0, "initialize", {{"protocolVersion", version}});
    ASSERT_EQ(r["result"]["protocolVersion"], version);
  }

  int fds_[2];
  std::unique_ptr<OutputChannel> out_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<LineReader> reader_;
  std::vector<Json> other_;
};

TEST_F(ServerTest, ListsAndCallsTools) {
  EXPECT_EQ(request(1, "tools/list", Json::object())["error"]["code"], kInvalidRequest);  // not initialized
  init("2025-11-25");
  const Json list = request(2, "tools/list", Json::object());
  ASSERT_EQ(list["result"]["tools"].size(), 3u);
  EXPECT_EQ(list["result"]["tools"][0]["name"], "echo");
  const Json r = request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"n", 4}}}});
  EXPECT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"]["n"], 4);
  EXPECT_EQ(r["result"]["content"][0]["text"], "echo");
  const Json bad = request(4, "tools/call", {{"name", "bad"}});
  EXPECT_EQ(bad["result"]["isError"], true);
  EXPECT_EQ(bad["result"]["content"][0]["text"], Error(ErrorKind::NotFound, "/x.pb", "no such file").what());
}

TEST_F(ServerTest, ArgumentErrorsFollowTheNegotiatedRevision) {
  init("2025-11-25");
  const Json r = request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"n", "four"}}}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("n: expected integer"),
            std::string::npos);
  server_.reset();
  server_ = std::make_unique<Server>(ServerInfo{"t", "t", "0", ""}, test_tools(), *out_, 1);
  init("2025-06-18");
  EXPECT_EQ(request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"n", 0}}}})["error"]["code"],
            kInvalidParams);
}

TEST_F(ServerTest, CancelledCallSendsNothingAndFreesItsSlot) {
  init("2025-11-25");
  server_->handle_line(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow",
                          "_meta":{"progressToken":"p"}}})");
  for (int seen = 0; seen < 2;) {  // running: its progress arrives
    other_.push_back(next());
    seen += other_.back().value("method", "") == "notifications/progress";
  }
  // The only slot is taken: busy.
  EXPECT_EQ(request(11, "tools/call", {{"name", "echo"}, {"arguments", {{"n", 1}}}})["result"]["isError"],
            true);
  EXPECT_EQ(request(12, "ping", Json::object())["result"], Json::object());  // answered meanwhile
  server_->handle_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const Json r = request(13, "tools/call", {{"name", "echo"}, {"arguments", {{"n", 2}}}});
  EXPECT_EQ(r["result"]["isError"], false);
  request(14, "ping", Json::object());
  int progress = 0, last = -1;
  for (const Json& m : other_) {
    EXPECT_FALSE(m.contains("id") && m["id"] == 10) << m.dump();
    if (m.value("method", "") == "notifications/progress") {
      ++progress;
      EXPECT_EQ(m["params"]["progressToken"], "p");
      EXPECT_GT(m["params"]["progress"].get<int>(), last);
      last = m["params"]["progress"].get<int>();
    }
  }
  EXPECT_GE(progress, 2);
}

TEST(SchemaCheck, CoversTheKeywordsTheToolsUse) {
  const Json schema = Json::parse(R"({"type":"object","additionalProperties":false,
    "anyOf":[{"required":["a"]},{"required":["b"]}],
    "properties":{"a":{"type":["string","number"]},"b":{"type":"array","items":{"type":"string","minLength":1},
    "minItems":1,"maxItems":2},"c":{"enum":["x","y"]},"d":{"type":"number","exclusiveMinimum":0,"maximum":60}}})");
  EXPECT_FALSE(schema_problem(schema, Json{{"a", "1"}}, ""));
  EXPECT_FALSE(schema_problem(schema, Json{{"a", 1.5}, {"d", 60}}, ""));
  EXPECT_FALSE(schema_problem(schema, Json{{"b", {"p"}}, {"c", "y"}}, ""));
  for (const char* bad : {R"({})", R"({"a":true})", R"({"b":[]})", R"({"b":["a","b","c"]})", R"({"b":[""]})",
                          R"({"a":1,"c":"z"})", R"({"a":1,"d":0})", R"({"a":1,"d":61})", R"({"a":1,"e":1})"})
    EXPECT_TRUE(schema_problem(schema, Json::parse(bad), "")) << bad;
  EXPECT_EQ(*schema_problem(Json{{"type", "integer"}}, Json(2.5), "top"),
            "top: expected integer, got a number");
  EXPECT_FALSE(schema_problem(Json{{"type", "integer"}}, Json(2.0), "top"));
}

}  // namespace
}  // namespace oomscope::mcp
