// The JSON-lines trace: write -> read round trip, and clear errors for bad files.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sim/trace_json.h"
#include "core/sim/trace_reader.h"
#include "core/util/error.h"
#include "sim_test_helpers.h"

namespace oomscope::sim {
namespace {

using testing::event_line;
using testing::trace_text;

Simulator finished_run() {
  SimConfig c = testing::sized_config({3000, 5200, 2500, 4100, 6000, 1800}, 3, 5000);
  c.memory.fragmentation_penalty = 600;
  c.fault = Fault{BugKind::ShapeMismatch, 3};
  Simulator sim(c);
  sim.run_to_end();
  return sim;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("oomscope_sim_" + name)).string();
}

TEST(Trace, WriteReadRoundTrip) {
  Simulator sim = finished_run();
  const std::string path = temp_path("roundtrip.jsonl");
  write_trace_file(path, sim.config(), sim.log(), sim.totals(), sim.baselines());
  const Trace t = read_trace_file(path);
  EXPECT_EQ(t.header.format, kTraceFormat);
  EXPECT_EQ(t.header.version, kTraceVersion);
  EXPECT_EQ(t.header.source, "simulator");
  ASSERT_TRUE(t.header.seed);
  EXPECT_EQ(*t.header.seed, sim.config().seed);
  ASSERT_EQ(t.log.events.size(), sim.log().events.size());
  for (std::size_t i = 0; i < t.log.events.size(); ++i)
    EXPECT_EQ(event_line(t.log, t.log.events[i]), event_line(sim.log(), sim.log().events[i]));
  ASSERT_TRUE(t.totals);
  EXPECT_EQ(*t.totals, sim.totals());
  ASSERT_TRUE(t.baselines);
  EXPECT_EQ(*t.baselines, sim.baselines());

  // The header's config reproduces the run.
  Simulator again(config_from_json(t.header.config, path));
  again.run_to_end();
  EXPECT_EQ(trace_text(again), trace_text(sim));
  std::filesystem::remove(path);
}

TEST(Trace, TraceWithoutTotalsIsReadAsUnfinished) {
  Simulator sim = finished_run();
  std::ostringstream out;
  TraceHeader h;
  h.source = "libtorch";
  TraceWriter w(out, h);
  for (const Event& e : sim.log().events) w.write_event(e, sim.log());
  std::istringstream in(out.str());
  const Trace t = read_trace(in, "run.jsonl");
  EXPECT_EQ(t.header.source, "libtorch");
  EXPECT_FALSE(t.header.seed);
  EXPECT_FALSE(t.totals);
  EXPECT_EQ(t.log.events.size(), sim.log().events.size());
}

// Reads `text` and returns the error message ("" when it reads).
std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    read_trace(in, "bad.jsonl");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string valid_lines(std::size_t events) {
  Simulator sim = finished_run();
  std::string all = trace_text(sim);
  std::istringstream in(all);
  std::string line, out;
  for (std::size_t i = 0; i < events + 1 && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

TEST(Trace, BadFilesNameFileAndLine) {
  const std::string ok = valid_lines(2);  // header + 2 events
  EXPECT_EQ(error_of(ok), "");
  EXPECT_EQ(error_of(""), "bad.jsonl: no trace header (the file is empty)");
  EXPECT_EQ(error_of(ok + "{not json\n").rfind("bad.jsonl: line 4: not valid JSON", 0), 0u)
      << error_of(ok + "{not json\n");
  EXPECT_EQ(error_of("{\"type\":\"event\"}\n"),
            "bad.jsonl: line 1: the first line must be the header, found a 'event' line");
  EXPECT_EQ(error_of("{\"type\":\"header\",\"format\":\"something-else\",\"version\":1}\n"),
            "bad.jsonl: line 1: format is 'something-else', expected 'oomscope-split-trace'");
  EXPECT_NE(
      error_of("{\"type\":\"header\",\"format\":\"oomscope-split-trace\",\"version\":2,\"source\":\"x\","
               "\"config\":{}}\n")
          .find("line 1: format version 2 is not supported"),
      std::string::npos);

  // A newer format is its own kind; other bad lines are Damaged.
  std::istringstream newer(
      "{\"type\":\"header\",\"format\":\"oomscope-split-trace\",\"version\":99,\"source\":\"x\","
      "\"config\":{}}\n");
  try {
    read_trace(newer, "new.jsonl");
    ADD_FAILURE() << "a newer trace version was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedVersion);
  }
  std::istringstream broken("{\"type\":\"event\"}\n");
  try {
    read_trace(broken, "broken.jsonl");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Damaged);
  }

  std::string bad_outcome = ok;
  bad_outcome.replace(bad_outcome.find("\"outcome\":\""), 11, "\"outcome\":\"maybe-");
  EXPECT_NE(error_of(bad_outcome).find("line 2: field 'outcome' is 'maybe-"), std::string::npos)
      << error_of(bad_outcome);

  std::string missing = ok;
  const auto at = missing.rfind(",\"points\":");
  missing.erase(at, missing.find(',', at + 1) - at);
  EXPECT_EQ(error_of(missing), "bad.jsonl: line 3: missing field 'points'");

  std::string forward_parent = ok;
  forward_parent.replace(forward_parent.rfind("\"parent\":0"), 10, "\"parent\":7");
  EXPECT_EQ(error_of(forward_parent), "bad.jsonl: line 3: parent 7 is not an earlier event");

  // Header, event 0, event 2: event 1 is missing.
  std::istringstream three(valid_lines(3));
  std::string l0, l1, l2, l3;
  std::getline(three, l0), std::getline(three, l1), std::getline(three, l2), std::getline(three, l3);
  EXPECT_EQ(error_of(l0 + "\n" + l1 + "\n" + l3 + "\n"),
            "bad.jsonl: line 3: event id 2 out of order (expected 1)");

  const std::string full = trace_text(finished_run());
  EXPECT_EQ(error_of(full), "");
  const auto lines = std::count(full.begin(), full.end(), '\n');
  EXPECT_EQ(error_of(full + "{\"type\":\"event\"}\n"),
            "bad.jsonl: line " + std::to_string(lines + 1) + ": unexpected line after the totals line");
}

TEST(Trace, FileErrors) {
  try {
    read_trace_file("/nonexistent/trace.jsonl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_EQ(e.file(), "/nonexistent/trace.jsonl");
  }
  const std::string gz = temp_path("trace.jsonl.gz");
  {
    std::ofstream out(gz, std::ios::binary);
    out << "\x1f\x8b\x08" << std::string(20, '\0');
  }
  try {
    read_trace_file(gz);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Gzip);
  }
  std::filesystem::remove(gz);
  EXPECT_THROW(write_trace_file("/nonexistent/dir/t.jsonl", SimConfig{}, EventLog{}, Totals{}, Baselines{}),
               Error);
}

TEST(Trace, ConfigFromJsonRejectsBadValues) {
  auto j = config_to_json(SimConfig{});
  j["policy"]["catch"] = "sometimes";
  try {
    config_from_json(j, "t.jsonl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "t.jsonl: config: field 'catch' is 'sometimes', expected oom-only, everything or runtime-error");
  }
  j = config_to_json(SimConfig{});
  j["batch"] = 0;
  EXPECT_THROW(config_from_json(j, "t.jsonl"), Error);
}

}  // namespace
}  // namespace oomscope::sim

namespace oomscope::sim {
namespace {

TEST(Trace, AGiantLineIsRefusedNotReadWhole) {
  std::string text =
      "{\"type\":\"header\",\"format\":\"oomscope-split-trace\",\"version\":1,\"source\":\"x\",\"config\":{}}"
      "\n";
  text += std::string((64u << 20) + 10, 'x');
  std::istringstream in(text);
  try {
    read_trace(in, "big.jsonl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "big.jsonl: line 2: line longer than 64 MiB: not a trace (each event is one short line)");
  }
}

// Found by tests/fuzz/run_sim_trace.sh: a number too large for a double made the JSON parser throw
// out_of_range, which escaped the reader instead of becoming an error naming the file and line.
TEST(Trace, ANumberTooLargeForADoubleIsAnErrorNamingTheLine) {
  std::istringstream in("{\"type\":\"header\",\"seed\":1e999}\n");
  try {
    read_trace(in, "huge.jsonl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Damaged);
    EXPECT_NE(std::string(e.what()).find("huge.jsonl: line 1: not valid JSON"), std::string::npos)
        << e.what();
  }
}

TEST(Trace, LinesLongerThanTheReadBufferAndCrlfStillRead) {
  SimConfig c = default_config();
  c.scenes.dist = SizeDist::File;
  c.scenes.sizes_file = "many.txt";
  c.scenes.sizes.assign(5000, 30000);  // a header line of about 35 KB
  c.scenes.count = 5000;
  Simulator sim(c);
  sim.run(10);
  std::string text = testing::trace_text(sim);
  std::string crlf;
  for (char ch : text) {
    if (ch == '\n') crlf += '\r';
    crlf += ch;
  }
  std::istringstream in(crlf);
  const Trace t = read_trace(in, "crlf.jsonl");
  EXPECT_EQ(t.log.events.size(), sim.log().events.size());
  EXPECT_EQ(config_from_json(t.header.config, "crlf.jsonl").scenes.sizes.size(), 5000u);
}

TEST(Trace, MaxEventsKeepsTheFirstAndCountsTheRest) {
  SimConfig c = default_config();
  c.scenes.count = 16;
  Simulator sim(c);
  sim.run_to_end();
  std::istringstream in(testing::trace_text(sim));
  const Trace t = read_trace(in, "t.jsonl", 5);
  EXPECT_EQ(t.log.events.size(), 5u);
  EXPECT_EQ(t.events_not_kept, std::int64_t(sim.log().events.size()) - 5);
  ASSERT_TRUE(t.totals);
  EXPECT_EQ(*t.totals, sim.totals());
}

}  // namespace
}  // namespace oomscope::sim
