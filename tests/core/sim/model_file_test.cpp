// The calibrated model file (docs/sim-model-format.md): what it accepts, what it refuses, what it sets.

#include "core/sim/model_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "core/util/error.h"

namespace oomscope::sim {
namespace {

const char* const kGood =
    R"({"format":"oomscope-sim-model","version":1,"fixed_bytes":52428800,"bytes_per_point":3391.5,)"
    R"("time_fixed_s":0.002,"time_per_point_s":2.5e-6,"torch_version":"1.13.1","device":"cpu"})";

std::string error_of(const std::string& text) {
  try {
    parse_model(text, "m.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelFile, ReadsTheFiguresAndKeepsOtherKeys) {
  const CalibratedModel m = parse_model(kGood, "m.json");
  EXPECT_EQ(m.fixed_bytes, 52428800);
  EXPECT_DOUBLE_EQ(m.bytes_per_point, 3391.5);
  EXPECT_DOUBLE_EQ(m.time_fixed_s, 0.002);
  EXPECT_DOUBLE_EQ(m.time_per_point_s, 2.5e-6);
  EXPECT_EQ(m.extra.at("device"), "cpu");
  EXPECT_EQ(m.extra.size(), 2u);
}

TEST(ModelFile, AppliesToTheMemoryAndTimeModels) {
  SimConfig c;
  const std::int64_t budget = c.memory.budget;
  apply_model(parse_model(kGood, "m.json"), c);
  EXPECT_EQ(c.memory.fixed_bytes, 52428800);
  EXPECT_EQ(c.memory.bytes_per_point, 3392);  // rounded to the nearest byte (3391.5 -> 3392)
  EXPECT_EQ(c.memory.budget, budget);
  EXPECT_EQ(c.time.fixed_ns_per_attempt, 2'000'000);
  EXPECT_EQ(c.time.forward_ps_per_point + c.time.backward_ps_per_point, 2'500'000);
  EXPECT_EQ(c.time.forward_ps_per_point, 875'000);
}

TEST(ModelFile, EachMissingRequiredKeyIsNamed) {
  for (const char* key :
       {"format", "version", "fixed_bytes", "bytes_per_point", "time_fixed_s", "time_per_point_s"}) {
    auto j = nlohmann::json::parse(kGood);
    j.erase(key);
    EXPECT_EQ(error_of(j.dump()), std::string("m.json: missing key '") + key + "'") << key;
  }
}

TEST(ModelFile, WrongTypesAndValuesAreNamed) {
  auto with = [](const char* key, nlohmann::json v) {
    auto j = nlohmann::json::parse(kGood);
    j[key] = std::move(v);
    return error_of(j.dump());
  };
  EXPECT_NE(with("bytes_per_point", "3391").find("key 'bytes_per_point' must be a number"),
            std::string::npos);
  EXPECT_NE(with("fixed_bytes", 1.5).find("key 'fixed_bytes' must be an integer"), std::string::npos);
  EXPECT_NE(with("fixed_bytes", -1).find("key 'fixed_bytes' is -1, out of range"), std::string::npos);
  EXPECT_NE(with("bytes_per_point", 0).find("'bytes_per_point' must be > 0"), std::string::npos);
  EXPECT_NE(with("time_per_point_s", -1e-6).find("'time_per_point_s' is"), std::string::npos);
  EXPECT_NE(with("format", "oomscope-split-trace").find("key 'format' must be"), std::string::npos);
  EXPECT_NE(with("version", 2).find("version 2 is not supported"), std::string::npos);
  EXPECT_NE(error_of("[1,2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"format\":").find("m.json: not JSON"), std::string::npos);
}

TEST(ModelFile, FileErrorsNameTheFile) {
  EXPECT_THROW(read_model_file("/nonexistent/model.json"), Error);
  const std::string path = ::testing::TempDir() + "/empty_model.json";
  std::ofstream(path).close();
  try {
    read_model_file(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace oomscope::sim

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/sim/agreement.h"
#include "core/sim/simulator.h"

namespace oomscope::sim {
namespace {

TEST(Agreement, IdenticalRunsAgreeAndADifferentBudgetDiverges) {
  SimConfig c = default_config();
  c.scenes.count = 16;
  Simulator a(c), b(c);
  a.run_to_end();
  b.run_to_end();
  const Agreement same = compare_outcomes(a.log(), b.log());
  EXPECT_EQ(same.first_divergence, -1);
  EXPECT_DOUBLE_EQ(same.fraction(), 1.0);
  c.memory.budget = 3LL << 30;
  Simulator d(c);
  d.run_to_end();
  const Agreement diff = compare_outcomes(a.log(), d.log());
  EXPECT_GE(diff.first_divergence, 0);
  EXPECT_LT(diff.fraction(), 1.0);
  EXPECT_LE(diff.same, std::min(diff.events_a, diff.events_b));
  EXPECT_EQ(
      diff.same, diff.first_divergence + [&] {  // everything before the first divergence agrees
        std::int64_t after = 0;
        for (std::size_t i = std::size_t(diff.first_divergence);
             i < std::min(a.log().events.size(), d.log().events.size()); ++i)
          after += a.log().events[i].outcome == d.log().events[i].outcome;
        return after;
      }());
}

}  // namespace
}  // namespace oomscope::sim
