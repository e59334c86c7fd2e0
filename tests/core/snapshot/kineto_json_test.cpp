// The Kineto reader's JSON side (JsonPull, core/snapshot/detail/kineto_events.h) against the nlohmann reader
// it replaced (kineto_reference.h): on the real traces, on crafted hostile inputs and on thousands of
// mutations of a small trace, both must reach the same verdict and keep the same events, bit for bit; and
// the chunk boundaries of the input must not matter.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "core/snapshot/detail/kineto_events.h"
#include "core/util/gzip.h"
#include "kineto_reference.h"

namespace oomscope::snapshot {
namespace {

std::string bits(double d) {
  std::uint64_t u = 0;
  std::memcpy(&u, &d, sizeof u);
  return std::to_string(u);
}

// Either side's outcome as text: the verdict, then every figure kept.
std::string describe(const reference::Result& r) {
  if (r.verdict == reference::Result::NotJson) return "not JSON";
  if (r.verdict == reference::Result::NotATrace) return "not a trace";
  std::ostringstream o;
  o << r.events << " " << r.memory_events << " " << r.oom_events << " base " << bits(r.base_time_ns) << "\n";
  for (const std::string& g : r.gpus) o << "gpu " << g << "\n";
  for (const auto& [key, ev] : r.groups) {
    o << "device " << key.first << " " << key.second << "\n";
    for (const auto& e : ev)
      o << bits(e.ts) << " " << e.bytes << " " << e.total_allocated << " " << e.total_reserved << " "
        << e.addr << " " << e.has_addr << e.oom << "\n";
  }
  return o.str();
}

reference::Result pulled(const std::string& text, std::size_t chunk) {
  std::size_t at = 0;
  detail::JsonPull j([&]() -> std::string_view {
    const std::size_t n = std::min(chunk, text.size() - at);
    const std::string_view c(text.data() + at, n);
    at += n;
    return c;
  });
  reference::Result r;
  detail::KinetoJson k;
  try {
    k = detail::read_kineto_json(j);
  } catch (const detail::JsonPull::Failure& f) {
    EXPECT_LE(f.offset, text.size());
    r.verdict = reference::Result::NotJson;
    return r;
  }
  if (!k.array_form && (!k.root_object || !k.has_trace_events)) {
    r.verdict = reference::Result::NotATrace;
    return r;
  }
  r.events = k.events, r.memory_events = k.memory_events, r.oom_events = k.oom_events;
  r.base_time_ns = k.base_time_ns;
  r.gpus = k.gpus;
  for (const auto& [key, ev] : k.groups)
    for (const auto& e : ev)
      r.groups[key].push_back(
          {e.ts, e.bytes, e.total_allocated, e.total_reserved, e.addr, e.has_addr, e.oom});
  return r;
}

void expect_same(const std::string& text, const std::string& what) {
  const std::string want = describe(reference::read(text));
  for (const std::size_t chunk : {std::size_t{1} << 30, std::size_t{1}, std::size_t{7}, std::size_t{4096}})
    EXPECT_EQ(describe(pulled(text, chunk)), want)
        << what << " (chunks of " << chunk << "): " << text.substr(0, 300);
}

std::string slurp_gz(const std::string& name) {
  FILE* f = std::fopen((std::string(OOMSCOPE_TEST_DATA) + "/" + name).c_str(), "rb");
  std::string raw;
  char buf[65536];
  for (std::size_t n; f && (n = std::fread(buf, 1, sizeof buf, f)) > 0;) raw.append(buf, n);
  if (f) std::fclose(f);
  return gunzip(raw, name);
}

TEST(KinetoJson, RealTracesKeepTheSameEvents) {
  for (const char* name : {"kineto_h100_qwen1.5_0.5b_inference_profile_memory.json.gz",
                           "kineto_resnet50_v100_profile_memory_2021.pt.trace.json.gz",
                           "kineto_ddp_v100_rank1_profile_memory.json.gz"}) {
    const std::string text = slurp_gz(name);
    const std::string want = describe(reference::read(text));
    EXPECT_GT(want.size(), 1000u) << name;
    EXPECT_EQ(describe(pulled(text, 1u << 30)), want) << name;
    EXPECT_EQ(describe(pulled(text, 65521)), want) << name;  // chunk edges fall inside tokens
  }
}

const char* kEvent =
    R"({"ph": "i", "name": "[memory]", "ts": 10.5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1024, "Addr": 5, "Total Allocated": 3072, "Total Reserved": 4096}})";

TEST(KinetoJson, CraftedInputsReachTheSameVerdict) {
  const std::string ev = kEvent;
  const std::vector<std::string> cases = {
      "",
      " ",
      "{}",
      "[]",
      "null",
      "1",
      "\"x\"",
      "{\"traceEvents\": []}",
      "{\"traceEvents\": 5}",
      "{\"traceEvents\": [" + ev + "]}",
      "[" + ev + "," + ev + "]",
      "[" + ev + ",]",
      "{\"traceEvents\": [" + ev,
      "{\"traceEvents\": {\"a\": " + ev + ", \"b\": 3}}",
      "{\"traceEvents\": [[" + ev + "]]}",
      "\xef\xbb\xbf{\"traceEvents\": [" + ev + "]}",
      "\xef\xbb\xbf[" + ev + "]",
      "\xef\xbb{}",
      "\xef",
      "{\"traceEvents\": [" + ev + "]} x",
      "{\"traceEvents\": [" + ev + "]}\n\t ",
      R"({"traceEvents": [{"name": "[memory]", "name": 5, "args": {}}]})",
      R"({"traceEvents": [{"name": 5, "name": "[memory]", "args": {"Bytes": 7}}]})",
      R"({"traceEvents": [{"name": "[memory]", "args": {"Bytes": 7}, "args": 3}]})",
      R"({"traceEvents": [{"name": "[memory]", "args": {"Bytes": 7, "Bytes": "x", "Addr": null}}]})",
      R"({"traceEvents": [{"name": "[OutOfMemory]", "ts": "5", "args": {"Bytes": 18446744073709551615}}]})",
      R"({"traceEvents": [{"name": "[memory]", "ts": -0, "args": {"Bytes": -9223372036854775809}}]})",
      R"({"traceEvents": [{"name": "[memory]", "ts": 1e-400, "args": {"Bytes": 1.9e19, "Device Id": 2.7}}]})",
      R"({"traceEvents": [{"name": "[memory]", "ts": 12345678901234567890123, "args": {"Bytes": 99999999999999999999999}}]})",
      R"({"traceEvents": [{"ph": "i", "ts": 1e999}]})",
      R"({"traceEvents": [{"ph": "i", "ts": -1E+309}]})",
      R"({"traceEvents": [{"dur": 1.7976931348623157e308}], "x": 1.7976931348623159e308})",
      R"({"traceEvents": [], "x": 01})",
      R"({"traceEvents": [], "x": 1.})",
      R"({"traceEvents": [], "x": .5})",
      R"({"traceEvents": [], "x": -})",
      R"({"traceEvents": [], "x": 1e})",
      R"({"traceEvents": [], "x": tru})",
      R"({"traceEvents": [], "x": nulll})",
      R"({"traceEvents": [], "x": "\q"})",
      R"({"traceEvents": [], "x": "\u12"})",
      R"({"traceEvents": [], "x": "\ud800"})",
      R"({"traceEvents": [], "x": "\ud800\u0041"})",
      R"({"traceEvents": [], "x": "\udc00"})",
      R"({"traceEvents": [], "x": "\ud83d\ude00 \u0000 \/"})",
      "{\"traceEvents\": [], \"x\": \"\x01\"}",
      "{\"traceEvents\": [], \"x\": \"\xc0\xaf\"}",
      "{\"traceEvents\": [], \"x\": \"\xed\xa0\x80\"}",
      "{\"traceEvents\": [], \"x\": \"\xf4\x90\x80\x80\"}",
      "{\"traceEvents\": [], \"x\": \"\xe2\x82\"}",
      "{\"traceEvents\": [], \"x\": \"\xe2\x82\xac \xf0\x9f\x98\x80\"}",
      "{\"traceEvents\": [], \"x\": \"\x80\"}",
      "{\"traceEvents\": [], \"\xff\": 1}",
      "{\"traceEvents\": [], \"x\": [1, 2,]}",
      "{\"traceEvents\": [], \"x\": {\"a\" 1}}",
      "{\"traceEvents\": [], \"x\": {\"a\": 1,}}",
      "{\"traceEvents\": [], \"x\": {1: 1}}",
      "{\"traceEvents\": []",
      R"({"deviceProperties": [{"name": "H100"}, {"name": 3}, {"name": "A", "name": "B"}], "traceEvents": []})",
      R"({"traceEvents": [], "baseTimeNanoseconds": 1700000000000000000, "baseTimeNanoseconds": "x"})",
      R"({"traceEvents": [], "baseTimeNanoseconds": 1700000000000000123})",
      R"({"traceEvents": [], "traceEvents": [{"name": "[memory]", "args": {"Bytes": 1}}]})",
      R"({"other": [{"name": "[memory]", "args": {"Bytes": 1}}], "traceEvents": []})",
      R"({"traceEvents": [{"name": "[memory]xxxxxxxxxxxxxxxxxxxxxxxxx", "args": {}}]})",
      R"({"traceEvents": [{"name": "[mem\u006fry]", "args": {"Device Type": 1e3}}]})",
      // The fast path's choices (JsonPull::scan_in_chunk): a name reached through an escaped key, a name
      // that is not at the event's top level, names given twice, nesting past its depth, big numbers.
      R"({"traceEvents": [{"na\u006de": "[memory]", "args": {"Bytes": 3}}]})",
      R"({"traceEvents": [{"x": {"name": "[memory]"}, "args": {"Bytes": 3}}]})",
      R"({"traceEvents": [{"name": "[memory]", "name": "aten::mm", "args": {"Bytes": 3}}]})",
      R"({"traceEvents": [{"name": "aten::mm", "name": "[memory]", "args": {"Bytes": 3}}]})",
      R"({"traceEvents": [{"name": "[OutOfMemory]", "ts": 1, "args": {"Bytes": 3, "x": "\ud83d\ude00"}}]})",
      "{\"traceEvents\": [{\"name\": \"a\", \"x\": " + std::string(40, '[') + std::string(40, ']') +
          "}, {\"name\": \"[memory]\", \"args\": {\"Bytes\": 1}}]}",
      "{\"traceEvents\": [{\"name\": \"a\", \"x\": " + std::string(40, '[') + std::string(39, ']') + "}]}",
      R"({"traceEvents": [{"name": "a", "x": 1e308, "y": 12345678901234567890123}]})",
      R"({"traceEvents": [{"name": "a", "x": 1e309}]})",
      R"({"traceEvents": [{"name": "a", "x": 0.1e309}, {"name": "[memory]", "args": {}}]})",
      R"({"traceEvents": [{"name": "a", "x": [1, 2, {"k": [true, false, null]}]}]})",
      R"({"traceEvents": [{"name": "a", "x": [1 2]}]})",
      R"({"traceEvents": [{"name": "a", "x": {"k" 1}}]})",
      R"({"traceEvents": [{"name": "a" "x": 1}]})",
      "{\"traceEvents\": [{\"name\": \"a\xc3\", \"x\": 1}]}",
      "{\"traceEvents\": [{\"name\": \"\xc3\xa9\", \"x\": \"\xf0\x9f\x98\x80\"}]}",
      std::string("{\"traceEvents\": [{\"name\": \"[memory]\", \"args\": {}}]}") + std::string(1, '\0'),
      std::string("{\"traceEvents\": []}") + std::string(1, '\0') + "garbage {",
      std::string("{\"traceEvents\": [") + std::string(1, '\0') + "]}",
      std::string("{\"traceEvents\": [], \"x\": \"a") + std::string(1, '\0') + "b\"}",
  };
  for (const std::string& c : cases) expect_same(c, "case");
  // Deep nesting is valid JSON for nlohmann (no depth limit): read without recursion.
  std::string deep =
      "{\"traceEvents\": [], \"x\": " + std::string(20000, '[') + std::string(20000, ']') + "}";
  expect_same(deep, "deep nesting");
  expect_same(deep.substr(0, deep.size() - 2), "deep nesting cut");
}

TEST(KinetoJson, MutationsReachTheSameVerdict) {
  const std::string base =
      std::string(R"({"deviceProperties": [{"name": "V100"}], "traceEvents": [)") + kEvent +
      R"(, {"ph": "X", "name": "aten::mm", "ts": 11, "dur": 2.5e1, "args": {"s": "\u00e9t\u00e9"}}, )" +
      R"({"name": "[OutOfMemory]", "ts": 12, "args": {"Bytes": -8192, "Device Type": 1}}], )" +
      R"("baseTimeNanoseconds": 1000})";
  expect_same(base, "base");
  std::mt19937 rng(29);
  const std::string alphabet = "{}[],:\"\\0123456789.eE+-tfnul \xc3\xa9\x80\xff";
  for (int i = 0; i < 4000; ++i) {
    std::string t = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 4) {
        case 0:
          t[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          t.erase(at, 1 + rng() % 4);
          break;
        case 2:
          t.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          t.resize(at);
      }
      if (t.empty()) t = "x";
    }
    const std::string want = describe(reference::read(t));
    ASSERT_EQ(describe(pulled(t, 1u << 30)), want) << "mutation " << i << ": " << t;
    ASSERT_EQ(describe(pulled(t, 3)), want) << "mutation " << i << " in chunks of 3: " << t;
  }
}

}  // namespace
}  // namespace oomscope::snapshot
