// Per-rank snapshots as one job (core/snapshot/rank_job.h, rank_comparison.h) on the sets that
// tests/data/tools/make_rank_sets.py made from a real snapshot; the expected figures are that script's own
// reading of the pickles (tests/data/ranks/expected.json), not oomscope's.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/snapshot/rank_comparison.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

const std::string kRanks = std::string(OOMSCOPE_TEST_DATA) + "/ranks";

nlohmann::json expected() {
  std::ifstream in(kRanks + "/expected.json");
  return nlohmann::json::parse(in);
}

std::vector<std::shared_ptr<const Snapshot>> read_all(const std::vector<std::string>& names) {
  std::vector<std::shared_ptr<const Snapshot>> out;
  for (const std::string& n : names) {
    std::string path = kRanks;
    path += '/';
    path += n;
    out.push_back(read_snapshot(path));
  }
  return out;
}

const RankFigures& rank_of(const RankComparison& c, std::int64_t rank) {
  for (const RankFigures& f : c.ranks)
    if (f.rank == rank) return f;
  throw std::runtime_error("no rank " + std::to_string(rank));
}

// The figures of every rank, the differing sites and categories and the imbalance, against the script.
void check_against_script(const RankComparison& c, const nlohmann::json& x) {
  ASSERT_EQ(c.ranks.size(), x["ranks"].size());
  for (const auto& [key, r] : x["ranks"].items()) {
    const RankFigures& f = rank_of(c, std::stoll(key));
    EXPECT_EQ(f.device, r["device"].get<std::int64_t>()) << key;
    EXPECT_EQ(f.peak_allocated, r["peak_allocated"].get<std::int64_t>()) << key;
    EXPECT_EQ(f.peak_reserved, r["peak_reserved"].get<std::int64_t>()) << key;
    ASSERT_EQ(f.oom.has_value(), !r["oom"].is_null()) << key;
    if (f.oom) {
      EXPECT_EQ(f.oom->requested, r["oom"]["requested"].get<std::int64_t>());
      EXPECT_EQ(f.oom->device_free, r["oom"]["device_free"].get<std::int64_t>());
      EXPECT_EQ(f.oom->time_us, r["oom"]["time_us"].get<std::int64_t>());
    }
    for (const auto& [cat, bytes] : r["categories"].items()) {
      std::int64_t got = 0;
      for (const CategoryTotal& t : f.categories)
        if (cat == to_string(t.category)) got = t.bytes;
      EXPECT_EQ(got, bytes.get<std::int64_t>()) << key << " " << cat;
    }
    EXPECT_EQ(f.sites.size(), r["sites"].size()) << key;
    for (const auto& [site, bytes] : r["sites"].items()) {
      const auto it = f.sites.find(site);
      ASSERT_NE(it, f.sites.end()) << key << " " << site;
      EXPECT_EQ(it->second, bytes.get<std::int64_t>()) << key << " " << site;
    }
  }
  EXPECT_EQ(c.verdict.rank, x["verdict_rank"].get<std::int64_t>());
  ASSERT_EQ(c.verdict.sites.size(), x["sites"].size());
  for (std::size_t i = 0; i < c.verdict.sites.size(); ++i) {
    EXPECT_EQ(c.verdict.sites[i].name, x["sites"][i]["site"].get<std::string>());
    EXPECT_EQ(c.verdict.sites[i].difference(), x["sites"][i]["difference"].get<double>());
  }
  ASSERT_EQ(c.verdict.categories.size(), x["categories"].size());
  for (std::size_t i = 0; i < c.verdict.categories.size(); ++i) {
    EXPECT_EQ(c.verdict.categories[i].name, x["categories"][i]["category"].get<std::string>());
    EXPECT_EQ(c.verdict.categories[i].difference(), x["categories"][i]["difference"].get<double>());
  }
  ASSERT_EQ(c.categories.size(), x["imbalance"].size());
  for (const Imbalance& im : c.categories) {
    const nlohmann::json& e = x["imbalance"][im.name];
    EXPECT_EQ(im.max_bytes, e["max"].get<std::int64_t>()) << im.name;
    EXPECT_EQ(im.median, e["median"].get<double>()) << im.name;
    EXPECT_EQ(im.ratio.has_value(), !e["ratio"].is_null()) << im.name;
    if (im.ratio) {
      EXPECT_NEAR(*im.ratio, e["ratio"].get<double>(), 1e-12) << im.name;
    }
  }
  ASSERT_TRUE(c.peak_allocated.ratio.has_value());
  EXPECT_NEAR(*c.peak_allocated.ratio, x["peak_allocated_ratio"].get<double>(), 1e-12);
}

TEST(RankName, Schemes) {
  EXPECT_EQ(rank_in_name("/x/rank3_oom.pickle")->rank, 3);
  EXPECT_EQ(rank_in_name("/x/oom_rank12.pickle")->rank, 12);
  EXPECT_EQ(rank_in_name("/x/rank_2/snapshot.pickle")->rank, 2);
  EXPECT_EQ(rank_in_name("/x/rank_2/snapshot.pickle")->where, "rank_2");
  EXPECT_EQ(rank_in_name("memory_snapshot_Rank-7.pickle")->rank, 7);
  EXPECT_EQ(rank_in_name("/run/iteration_10/rank5_memory_snapshot.pickle")->rank, 5);
  EXPECT_FALSE(rank_in_name("/x/frank3.pickle"));          // a letter before "rank"
  EXPECT_FALSE(rank_in_name("/x/ranking.pickle"));         // no digits
  EXPECT_FALSE(rank_in_name("/x/rank1_to_rank2.pickle"));  // two ranks: ambiguous
  EXPECT_FALSE(rank_in_name("/x/snapshot.pickle"));
}

// A folder every file sits in tells no rank apart: a checkout or run folder named "rank25" above both files.
TEST(RankName, SharedFolderIsNoRank) {
  EXPECT_EQ(shared_folder({"/work/rank25/data/a.pickle", "/work/rank25/data/b.pickle"}), "/work/rank25/data");
  EXPECT_EQ(shared_folder({"/job/rank_0/snap.pickle", "/job/rank_1/snap.pickle"}), "/job");
  EXPECT_EQ(shared_folder({"/job/./rank_0/snap.pickle", "/job/rank_1/../rank_1/snap.pickle"}), "/job");
  EXPECT_EQ(shared_folder({"a.pickle", "b.pickle"}), "");
  EXPECT_EQ(shared_folder({"/x/a.pickle"}), "");
  EXPECT_FALSE(rank_in_name("/work/rank25/data/a.pickle", "/work/rank25/data"));
  EXPECT_FALSE(rank_in_name("/work/rank25/data/a.pickle", "/work/rank25/data/"));
  EXPECT_EQ(rank_in_name("/work/rank25/data/a.pickle")->rank, 25);  // alone, the folder is all there is
  EXPECT_EQ(rank_in_name("/job/rank_1/snap.pickle", "/job")->rank, 1);
  EXPECT_EQ(rank_in_name("/rank9/rank_1/snap.pickle", "/rank9")->rank, 1);
  EXPECT_EQ(rank_in_name("/work/rank25/data/rank3.pickle", "/work/rank25/data")->rank, 3);
}

// The same two unrelated snapshots as below, as if both sat in a checkout named "rank25": not one job, and
// not an error that both claim rank 25.
TEST(RankJob, SharedFolderRankNumberIsNotEveryFilesRank) {
  std::vector<std::shared_ptr<const Snapshot>> snaps;
  for (const char* name :
       {"torch_snapshot_cs336_small_peak.pickle", "torch2.0_snapshot_flexgen_oom.pickle"}) {
    auto s = std::make_shared<Snapshot>(*read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/" + name));
    s->path = std::string("/work/rank25/tests/data/") + name;
    snaps.push_back(std::move(s));
  }
  RankGrouping g;
  ASSERT_NO_THROW(g = group_ranks(snaps));
  EXPECT_FALSE(g.is_job);
  EXPECT_NE(g.not_a_job.find("the file names carry no rank numbers"), std::string::npos) << g.not_a_job;
}

TEST(RankJob, OomJobFirstByTime) {
  const auto snaps = read_all({"oom_job/rank0_oom.pickle", "oom_job/rank1_oom.pickle",
                               "oom_job/rank2_oom.pickle", "oom_job/rank3_oom.pickle"});
  const RankGrouping g = group_ranks(snaps);
  ASSERT_TRUE(g.is_job) << g.not_a_job;
  EXPECT_EQ(g.source, RankSource::FileName);
  EXPECT_TRUE(g.excluded.empty());
  const RankComparison c = compare_ranks(snaps, g, std::nullopt, 10);
  check_against_script(c, expected()["oom_job"]);
  EXPECT_EQ(c.verdict.kind, VerdictCase::Oom);
  EXPECT_EQ(c.verdict.oom_ranks, (std::vector<std::int64_t>{0, 2}));
  ASSERT_TRUE(c.verdict.clocks_comparable.has_value());
  EXPECT_TRUE(*c.verdict.clocks_comparable);
  // Capacity at the OOM: reserved there + device_free.
  const RankFigures& r2 = rank_of(c, 2);
  ASSERT_TRUE(r2.capacity && r2.oom);
  EXPECT_EQ(r2.capacity_source, RankCapacitySource::AtOom);
  EXPECT_EQ(*r2.capacity, r2.oom->reserved + r2.oom->device_free);
  EXPECT_FALSE(rank_of(c, 1).capacity);
}

TEST(RankJob, NoOomHighestReservedPeakThenClosestToCapacity) {
  const auto snaps = read_all(
      {"no_oom/rank_0/snapshot.pickle", "no_oom/rank_1/snapshot.pickle", "no_oom/rank_2/snapshot.pickle"});
  const RankGrouping g = group_ranks(snaps);
  ASSERT_TRUE(g.is_job) << g.not_a_job;
  const RankComparison c = compare_ranks(snaps, g, std::nullopt, 10);
  check_against_script(c, expected()["no_oom"]);
  EXPECT_EQ(c.verdict.kind, VerdictCase::HighestReservedPeak);
  EXPECT_TRUE(c.verdict.oom_ranks.empty());
  const RankComparison given = compare_ranks(snaps, g, std::int64_t{5} << 30, 10);
  EXPECT_EQ(given.verdict.kind, VerdictCase::ClosestToCapacity);
  EXPECT_EQ(given.verdict.rank, 1);
}

TEST(RankJob, AStrangerIsNamedNotMerged) {
  const auto snaps =
      read_all({"oom_job/rank0_oom.pickle", "oom_job/rank1_oom.pickle", "extra/rank3_stranger.pickle"});
  const RankGrouping g = group_ranks(snaps);
  ASSERT_TRUE(g.is_job) << g.not_a_job;
  ASSERT_EQ(g.members.size(), 2u);
  ASSERT_EQ(g.excluded.size(), 1u);
  EXPECT_EQ(g.excluded[0].path, kRanks + "/extra/rank3_stranger.pickle");
  EXPECT_NE(g.excluded[0].reason.find("another program"), std::string::npos);
}

TEST(RankJob, TwoFilesClaimingOneRank) {
  const auto snaps =
      read_all({"oom_job/rank0_oom.pickle", "oom_job/rank1_oom.pickle", "extra/oom_rank1.pickle"});
  try {
    group_ranks(snaps);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), kRanks + "/extra/oom_rank1.pickle");
    EXPECT_NE(e.message().find("claims rank 1"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("oom_job/rank1_oom.pickle"), std::string::npos) << e.message();
  }
}

TEST(RankJob, UnrelatedSnapshotsOnOneDeviceAreNoJob) {
  const auto snaps = std::vector<std::shared_ptr<const Snapshot>>{
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_cs336_small_peak.pickle"),
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch2.0_snapshot_flexgen_oom.pickle")};
  const RankGrouping g = group_ranks(snaps);
  EXPECT_FALSE(g.is_job);
  EXPECT_FALSE(g.not_a_job.empty());
}

TEST(RankJob, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(median_of({3, 1, 2}), 2.0);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({}), 0.0);
}

}  // namespace
}  // namespace oomscope::snapshot
