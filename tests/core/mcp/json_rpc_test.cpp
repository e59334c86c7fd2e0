// JSON-RPC message classification and the line reader's bound (core/mcp/json_rpc.h, line_reader.h).

#include "core/mcp/json_rpc.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "core/mcp/line_reader.h"

namespace oomscope::mcp {
namespace {

using Kind = Incoming::Kind;

TEST(JsonRpc, ClassifiesRequestsNotificationsAndResponses) {
  Incoming in = classify(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"a":1}})");
  EXPECT_EQ(in.kind, Kind::Request);
  EXPECT_EQ(in.id, 7);
  EXPECT_EQ(in.method, "tools/list");
  EXPECT_EQ(in.params["a"], 1);
  in = classify(R"({"jsonrpc":"2.0","id":"x","method":"ping"})");
  EXPECT_EQ(in.kind, Kind::Request);
  EXPECT_EQ(in.id, "x");
  EXPECT_TRUE(in.params.is_null());
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind, Kind::Notification);
  // A notification's bad params are dropped, never answered.
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","method":"n","params":3})").kind, Kind::Notification);
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","id":1,"result":{}})").kind, Kind::Response);
}

TEST(JsonRpc, RefusesWhatIsNotAMessageWithTheSpecifiedCodes) {
  const auto check = [](const std::string& line, int code, bool null_id) {
    const Incoming in = classify(line);
    EXPECT_EQ(in.kind, Kind::Invalid) << line;
    EXPECT_EQ(in.error_code, code) << line;
    EXPECT_EQ(in.id.is_null(), null_id) << line;
    EXPECT_FALSE(in.error_message.empty()) << line;
  };
  check("{not json", kParseError, true);
  check("", kParseError, true);
  check("[]", kInvalidRequest, true);
  check(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", kInvalidRequest, true);
  check("17", kInvalidRequest, true);
  check(R"({"id":3,"method":"ping"})", kInvalidRequest, false);
  check(R"({"jsonrpc":"2.0","id":3})", kInvalidRequest, false);
  check(R"({"jsonrpc":"2.0","id":3,"method":5})", kInvalidRequest, false);
  check(R"({"jsonrpc":"2.0","id":null,"method":"ping"})", kInvalidRequest, true);
  check(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", kInvalidRequest, true);
  check(R"({"jsonrpc":"2.0","id":4,"method":"ping","params":[1]})", kInvalidParams, false);
  check(std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']'), kInvalidRequest, true);
  // Brackets inside strings are not nesting.
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","id":1,"method":")" + std::string(500, '[') + "\"}").kind,
            Kind::Request);
}

TEST(JsonRpc, IdKeysKeepStringsAndNumbersApart) {
  EXPECT_NE(id_key(Json("1")), id_key(Json(1)));
  EXPECT_EQ(id_key(Json(1)), id_key(Json::parse("1")));
}

// Writes `text` into a pipe from a thread and reads it back with a LineReader of the given bound.
std::vector<std::pair<LineReader::Status, std::string>> read_all(const std::string& text, std::size_t max) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (std::size_t at = 0; at < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + at, std::min<std::size_t>(text.size() - at, 1000));
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  LineReader reader(fds[0], max);
  std::vector<std::pair<LineReader::Status, std::string>> got;
  std::string line;
  for (LineReader::Status s; (s = reader.next(line)) != LineReader::Status::End;)
    got.emplace_back(s, s == LineReader::Status::Line ? line : "");
  writer.join();
  ::close(fds[0]);
  return got;
}

TEST(LineReader, SplitsLinesAndSkipsTooLongOnesWhole) {
  using S = LineReader::Status;
  const std::string big(300000, 'x');
  const auto got = read_all("one\r\ntwo\n" + big + "\nthree\n" + std::string(100, 'y') + "\nlast", 100);
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], std::pair(S::Line, std::string("one")));
  EXPECT_EQ(got[1], std::pair(S::Line, std::string("two")));
  EXPECT_EQ(got[2].first, S::TooLong);
  EXPECT_EQ(got[3], std::pair(S::Line, std::string("three")));
  EXPECT_EQ(got[4].first, S::Line);                            // exactly at the bound is allowed
  EXPECT_EQ(got[5], std::pair(S::Line, std::string("last")));  // a last line without a newline
  const auto tail = read_all(std::string(500, 'z'), 100);      // too long and never ended
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].first, S::TooLong);
}

}  // namespace
}  // namespace oomscope::mcp
