// Per-rank Kineto traces as one job (core/snapshot/kineto_ranks.h) on the sets that
// tests/data/tools/make_kineto_ranks.py cut from a real DDP trace; the expected figures are that script's
// own reading of the JSON it wrote (tests/data/kineto_ranks/expected.json), not oomscope's. Also the
// reader's distributedInfo and ProfilerStep markers.

#include "core/snapshot/kineto_ranks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

namespace fs = std::filesystem;

const std::string kSets = std::string(OOMSCOPE_TEST_DATA) + "/kineto_ranks";

nlohmann::json expected() {
  std::ifstream in(kSets + "/expected.json");
  return nlohmann::json::parse(in);
}

std::vector<std::shared_ptr<const KinetoTrace>> read_set(const std::string& set) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(kSets) / set)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<std::shared_ptr<const KinetoTrace>> out;
  NullProgress none;
  for (const std::string& f : files) out.push_back(read_kineto_trace(f, none));
  return out;
}

void check_against_script(const KinetoRankJob& j, const nlohmann::json& x) {
  ASSERT_TRUE(j.is_job) << j.not_a_job;
  ASSERT_EQ(j.ranks.size(), x["ranks"].size());
  for (std::size_t i = 0; i < j.ranks.size(); ++i) {
    const KinetoRank& r = j.ranks[i];
    const nlohmann::json& e = x["ranks"][i];
    EXPECT_EQ(r.rank, e["rank"].get<std::int64_t>());
    EXPECT_EQ(fs::path(r.path).filename().string(), e["file"].get<std::string>());
    EXPECT_EQ(r.device_id, e["device"].get<std::int64_t>()) << r.rank;
    EXPECT_EQ(r.memory_events, e["memory_events"].get<std::size_t>()) << r.rank;
    EXPECT_TRUE(r.peak_allocated_read);
    EXPECT_EQ(r.peak_allocated, e["peak_allocated_bytes"].get<std::int64_t>()) << r.rank;
    ASSERT_TRUE(r.peak_reserved.has_value());
    EXPECT_EQ(*r.peak_reserved, e["peak_reserved_bytes"].get<std::int64_t>()) << r.rank;
    ASSERT_TRUE(r.capacity.has_value());
    EXPECT_EQ(*r.capacity, e["capacity_bytes"].get<std::int64_t>()) << r.rank;
    EXPECT_EQ(r.capacity_source, KinetoCapacitySource::DeviceProperties);
    ASSERT_EQ(r.ooms.size(), e["ooms"].size()) << r.rank;
    for (std::size_t k = 0; k < r.ooms.size(); ++k) {
      EXPECT_EQ(r.ooms[k].requested, e["ooms"][k]["requested_bytes"].get<std::int64_t>());
      EXPECT_DOUBLE_EQ(r.ooms[k].ts_us, e["ooms"][k]["ts_us"].get<double>());
    }
    EXPECT_EQ(r.steps, e["steps"].get<std::vector<std::int64_t>>()) << r.rank;
  }
  EXPECT_EQ(j.verdict.rank, x["verdict"]["rank"].get<std::int64_t>());
  EXPECT_EQ(to_string(j.verdict.kind), x["verdict"]["case"].get<std::string>());
  EXPECT_EQ(j.verdict.oom_ranks, x["verdict"]["oom_ranks"].get<std::vector<std::int64_t>>());
  for (const auto& [name, im] :
       {std::pair("peak_allocated", &j.peak_allocated), std::pair("peak_reserved", &j.peak_reserved)}) {
    const nlohmann::json& e = x["imbalance"][name];
    EXPECT_EQ(im->max_bytes, e["max_bytes"].get<std::int64_t>()) << name;
    EXPECT_EQ(im->max_rank, e["max_rank"].get<std::int64_t>()) << name;
    EXPECT_DOUBLE_EQ(im->median, e["median_bytes"].get<double>()) << name;
    ASSERT_TRUE(im->ratio.has_value());
    EXPECT_NEAR(*im->ratio, e["ratio"].get<double>(), 1e-12) << name;
  }
}

TEST(KinetoRanks, OomJobByDistributedInfo) {
  const KinetoRankJob j = compare_kineto_ranks(read_set("oom_job"), std::nullopt);
  check_against_script(j, expected()["oom_job"]);
  EXPECT_EQ(j.source, KinetoRankSource::DistributedInfo);
  for (const KinetoRank& r : j.ranks) EXPECT_EQ(r.world_size, 4);
  ASSERT_TRUE(j.verdict.clocks_comparable.has_value());
  EXPECT_TRUE(*j.verdict.clocks_comparable);
  EXPECT_TRUE(j.verdict.categories.empty());
  EXPECT_TRUE(j.verdict.sites.empty());
}

TEST(KinetoRanks, NoOomJobByFileName) {
  const KinetoRankJob j = compare_kineto_ranks(read_set("no_oom"), std::nullopt);
  check_against_script(j, expected()["no_oom"]);
  EXPECT_EQ(j.source, KinetoRankSource::FileName);
  EXPECT_EQ(j.ranks[1].named_by, "rank1.pt.trace.json.gz");
}

TEST(KinetoRanks, GivenCapacityReplacesTheDevice) {
  const KinetoRankJob j = compare_kineto_ranks(read_set("no_oom"), std::int64_t{1} << 36);
  for (const KinetoRank& r : j.ranks) {
    EXPECT_EQ(r.capacity, std::int64_t{1} << 36);
    EXPECT_EQ(r.capacity_source, KinetoCapacitySource::Given);
  }
  EXPECT_EQ(j.verdict.kind, VerdictCase::ClosestToCapacity);
}

TEST(KinetoRanks, TwoClaimsOfOneRankAreRefusedNamingTheSecond) {
  auto traces = read_set("oom_job");
  traces.push_back(traces[1]);
  try {
    compare_kineto_ranks(traces, std::nullopt);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("claims rank 1"), std::string::npos) << e.what();
  }
}

TEST(KinetoRanks, ATraceWithoutARankIsNoJob) {
  const auto one = read_kineto_trace_from_text(
      R"({"traceEvents":[{"name":"[memory]","ts":1,"args":{"Device Type":1,"Device Id":0,"Bytes":5}}]})",
      "/tmp/a.json");
  const auto two = read_kineto_trace_from_text(
      R"({"distributedInfo":{"rank":3,"world_size":8},"traceEvents":[{"name":"ProfilerStep#12","ts":4},)"
      R"({"name":"ProfilerStep#11","ts":2},{"name":"ProfilerStep#x","ts":3}]})",
      "/tmp/b.json");
  ASSERT_TRUE(two->distributed.has_value());
  EXPECT_EQ(two->distributed->rank, 3);
  EXPECT_EQ(two->distributed->world_size, 8);
  ASSERT_EQ(two->steps.size(), 2u);  // in time order; "ProfilerStep#x" is no step
  EXPECT_EQ(two->steps[0].step, 11);
  EXPECT_EQ(two->steps[1].step, 12);
  const KinetoRankJob j = compare_kineto_ranks({one, two}, std::nullopt);
  EXPECT_FALSE(j.is_job);
  ASSERT_EQ(j.excluded.size(), 1u);
  EXPECT_EQ(j.excluded[0].path, "/tmp/a.json");
}

}  // namespace
}  // namespace oomscope::snapshot
