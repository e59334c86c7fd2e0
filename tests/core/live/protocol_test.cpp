// Protocol v1: parsing every line type, rejecting malformed/wrong-typed/oversized lines with a message,
// ignoring unknown types and fields, and writing lines that parse back to the same values.

#include "core/live/protocol/protocol.h"

#include <gtest/gtest.h>

namespace oomscope::live {
namespace {

TEST(LiveProtocol, ParsesASampleWithSomeFields) {
  const auto r = parse_line(R"({"type":"sample","t":1700000000000000000,"step":12,"allocated":1086000000,)"
                            R"("driver":43254000000,"future_field":[1,2]})");
  ASSERT_TRUE(r.message) << r.error;
  const auto& s = std::get<Sample>(*r.message);
  EXPECT_EQ(s.t, 1700000000000000000);
  EXPECT_EQ(s.get(Field::Step), 12);
  EXPECT_EQ(s.get(Field::Driver), 43254000000);
  EXPECT_FALSE(s.has(Field::Reserved));
}

TEST(LiveProtocol, ParsesHelloEventShapes) {
  auto r = parse_line(
      R"({"type":"hello","protocol":1,"pid":7,"host":"h","rank":3,"world_size":8,)"
      R"("backend":"mps","device":"Apple M2","total_bytes":25559000000,"framework":"torch 2.11.0",)"
      R"("command":["train.py","--resume"]})");
  ASSERT_TRUE(r.message) << r.error;
  const auto& h = std::get<Hello>(*r.message);
  EXPECT_EQ(h.rank, 3);
  EXPECT_EQ(h.world_size, 8);
  EXPECT_EQ(h.command.size(), 2u);
  r = parse_line(
      R"({"type":"event","t":5,"kind":"oom","message":"MPS backend out of memory","path":"/tmp/s.pickle"})");
  ASSERT_TRUE(r.message) << r.error;
  EXPECT_EQ(std::get<Event>(*r.message).path, "/tmp/s.pickle");
  r = parse_line(R"({"type":"shapes","t":5,"distinct":9072,"last":[16,384]})");
  ASSERT_TRUE(r.message) << r.error;
  EXPECT_EQ(std::get<Shapes>(*r.message).distinct, 9072);
}

TEST(LiveProtocol, UnknownTypeIsIgnoredNotAnError) {
  const auto r = parse_line(R"({"type":"telemetry_v2","x":1})");
  ASSERT_TRUE(r.message);
  EXPECT_EQ(std::get<Unknown>(*r.message).type, "telemetry_v2");
}

TEST(LiveProtocol, RejectsBadLinesWithAMessage) {
  struct Case {
    const char* line;
    const char* says;
  } cases[] = {
      {"not json at all", "not valid JSON"},
      {"[1,2,3]", "not an object"},
      {R"({"t":1})", "no string 'type'"},
      {R"({"type":"sample"})", "no 't'"},
      {R"({"type":"sample","t":1,"allocated":"12 GB"})", "'allocated' should be an integer"},
      {R"({"type":"sample","t":1,"allocated":1.5})", "'allocated' should be an integer"},
      {R"({"type":"sample","t":1,"allocated":18446744073709551615})", "out of range"},
      {R"({"type":"hello","pid":1})", "no 'protocol'"},
      {R"({"type":"event","t":1})", "no 'kind'"},
      {R"({"type":"shapes","t":1,"last":"16x384"})", "'last' should be an array"},
      {R"({"type":"subscribe","interval_ms":0})", "between 1 and"},
      {R"({"type":"hello","protocol":1,"host":5})", "'host' should be a string"},
  };
  for (const auto& c : cases) {
    const auto r = parse_line(c.line);
    EXPECT_FALSE(r.message) << c.line;
    EXPECT_NE(r.error.find(c.says), std::string::npos) << c.line << " -> " << r.error;
  }
}

TEST(LiveProtocol, IntegralFloatsAndNullsAreAccepted) {
  const auto r = parse_line(R"({"type":"sample","t":1,"allocated":1.0e9,"reserved":null})");
  ASSERT_TRUE(r.message) << r.error;
  const auto& s = std::get<Sample>(*r.message);
  EXPECT_EQ(s.get(Field::Allocated), 1000000000);
  EXPECT_FALSE(s.has(Field::Reserved));
}

TEST(LiveProtocol, WrittenLinesParseBack) {
  Sample s;
  s.t = 123456789;
  s.set(Field::Allocated, 1);
  s.set(Field::RecommendedMax, 25559000000);
  s.set(Field::Ooms, 0);
  const std::string line = write_line(s);
  ASSERT_EQ(line.back(), '\n');
  const auto r = parse_line(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(r.message) << r.error;
  const auto& back = std::get<Sample>(*r.message);
  EXPECT_EQ(back.present, s.present);
  EXPECT_EQ(back.values, s.values);

  Event e{77, "checkpoint", "saved \"state\"\n", "", 3000};
  const std::string el = write_line(e);
  const auto er = parse_line(std::string_view(el).substr(0, el.size() - 1));
  ASSERT_TRUE(er.message) << er.error;
  EXPECT_EQ(std::get<Event>(*er.message).message, e.message);
  EXPECT_EQ(std::get<Event>(*er.message).step, 3000);
}

TEST(LiveProtocol, SplitterCapsOversizedLinesAndKeepsGoing) {
  LineSplitter split(16);
  std::vector<std::string> lines;
  std::vector<std::size_t> oversized;
  auto on_line = [&](std::string_view l) { lines.emplace_back(l); };
  auto on_big = [&](std::size_t n) { oversized.push_back(n); };
  split.feed("abc\nde", on_line, on_big);
  split.feed("f\r\n0123456789", on_line, on_big);
  split.feed("0123456789xyz\nok\n", on_line, on_big);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "abc");
  EXPECT_EQ(lines[1], "def");
  EXPECT_EQ(lines[2], "ok");
  ASSERT_EQ(oversized.size(), 1u);
  EXPECT_EQ(oversized[0], 23u);
  split.feed("half a li", on_line, on_big);
  EXPECT_EQ(split.pending(), 9u);
}

}  // namespace
}  // namespace oomscope::live
