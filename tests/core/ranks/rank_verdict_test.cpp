// The verdict and the imbalance that the snapshot, Kineto and recording rank comparisons share
// (core/ranks): which rank is named in each case, how ties go, and the sentences' figures.
#include "core/ranks/rank_verdict.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ranks/rank_imbalance.h"

namespace oomscope::ranks {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;

const VerdictWords kWords{"whose file records an OOM", "no file records an OOM",
                          "a file without one does not record its capacity", ", the closest", ", "};

RankStanding standing(std::int64_t rank, std::int64_t held, std::optional<std::int64_t> capacity = {},
                      std::optional<double> oom = {}) {
  return RankStanding{rank, oom, held, capacity};
}

TEST(RankVerdict, TheOnlyOomIsNamedWhateverThePeaks) {
  const std::vector<RankStanding> r = {standing(0, 10 * kGiB), standing(1, 2 * kGiB, {}, 5.0),
                                       standing(2, 9 * kGiB)};
  const VerdictChoice v = choose_verdict(r, "", kWords);
  EXPECT_EQ(v.chosen, 1u);
  EXPECT_EQ(v.kind, VerdictCase::Oom);
  EXPECT_EQ(v.oom_ranks, std::vector<std::int64_t>{1});
  EXPECT_FALSE(v.clocks_comparable.has_value());
  ASSERT_EQ(v.sentences.size(), 1u);
  EXPECT_EQ(v.sentences[0],
            "rank 1 ran out of memory, the only one of 3 ranks whose file records an OOM [read]");
}

TEST(RankVerdict, SeveralOomsTheFirstByTheClockAndTheGap) {
  const std::vector<RankStanding> r = {standing(0, kGiB, {}, 2'000'000.0), standing(3, kGiB, {}, 1'970'000.0),
                                       standing(5, kGiB, {}, 2'500'000.0)};
  const VerdictChoice v = choose_verdict(r, "", kWords);
  EXPECT_EQ(r[v.chosen].rank, 3);
  EXPECT_EQ(v.clocks_comparable, true);
  EXPECT_EQ(v.oom_ranks, (std::vector<std::int64_t>{0, 3, 5}));
  ASSERT_EQ(v.sentences.size(), 2u);
  EXPECT_EQ(v.sentences[0], "ranks 0, 3 and 5 ran out of memory [read]");
  EXPECT_EQ(v.sentences[1].rfind("rank 3 first, 30.000 ms before rank 0 [read]", 0), 0u) << v.sentences[1];
  EXPECT_EQ(ooms_by_time(r), (std::vector<std::size_t>{1, 0, 2}));
}

TEST(RankVerdict, TheSameMicrosecondNamesTheLowerRank) {
  const std::vector<RankStanding> r = {standing(1, kGiB, {}, 7.0), standing(4, kGiB, {}, 7.0)};
  const VerdictChoice v = choose_verdict(r, "", kWords);
  EXPECT_EQ(r[v.chosen].rank, 1);
  EXPECT_NE(v.sentences[1].find("(the same microsecond: the lower rank is named)"), std::string::npos);
}

TEST(RankVerdict, ClocksThatDoNotCompareNameTheClosestOomRank) {
  const std::vector<RankStanding> r = {standing(0, 70, 100, 1.0), standing(1, 90, 100, 9.0),
                                       standing(2, 99, 100)};  // rank 2 is closer but did not run out
  const VerdictChoice v = choose_verdict(r, "rank 1's OOM entry has no time", kWords);
  EXPECT_EQ(r[v.chosen].rank, 1);
  EXPECT_EQ(v.clocks_comparable, false);
  EXPECT_EQ(v.sentences[1],
            "which ran out first cannot be told: rank 1's OOM entry has no time; named: rank 1, the closest "
            "[derived]");
}

TEST(RankVerdict, NoOomTheClosestShareOfCapacityNotTheLargestBytes) {
  const std::vector<RankStanding> r = {standing(0, 60 * kGiB, 80 * kGiB), standing(1, 30 * kGiB, 32 * kGiB)};
  const VerdictChoice v = choose_verdict(r, "", kWords);
  EXPECT_EQ(v.kind, VerdictCase::ClosestToCapacity);
  EXPECT_EQ(r[v.chosen].rank, 1);
  EXPECT_EQ(v.sentences[0],
            "no file records an OOM [read]; rank 1 came closest to its capacity: reserved peak 30.0 GiB of "
            "32.0 GiB (93.8 %) [derived]");
}

TEST(RankVerdict, NoOomAndACapacityMissingTheHighestPeakWhateverTheOthersCapacities) {
  // Rank 0 has a capacity and is at 90 %; rank 1 has none: the highest peak is rank 1's, and the sentence
  // says "the highest", so rank 1 is named.
  const std::vector<RankStanding> r = {standing(0, 9 * kGiB, 10 * kGiB), standing(1, 12 * kGiB)};
  const VerdictChoice v = choose_verdict(r, "", kWords);
  EXPECT_EQ(v.kind, VerdictCase::HighestReservedPeak);
  EXPECT_EQ(r[v.chosen].rank, 1);
  EXPECT_EQ(v.sentences[0],
            "no file records an OOM [read], and a file without one does not record its capacity: rank 1 has "
            "the highest reserved peak, 12.0 GiB [derived]; give --capacity to rank them by closeness to "
            "capacity");
}

TEST(RankVerdict, TiesGoToTheFirstGiven) {
  const std::vector<RankStanding> r = {standing(2, 5, 10), standing(3, 5, 10)};
  EXPECT_EQ(closest_to_capacity(r, {0, 1}), 0u);
  EXPECT_EQ(highest_held(r), 0u);
  EXPECT_EQ(to_string(VerdictCase::HighestReservedPeak), std::string("highest-reserved-peak"));
}

TEST(RankVerdict, RankListAndPercent) {
  EXPECT_EQ(rank_list({2}), "2");
  EXPECT_EQ(rank_list({0, 2}), "0 and 2");
  EXPECT_EQ(rank_list({0, 1, 3}), "0, 1 and 3");
  EXPECT_EQ(percent_of(1, 3), "33.3 %");
  EXPECT_EQ(percent_of(1, 0), "0.0 %");
}

TEST(RankImbalance, MaxOverMedianWithTheFirstMaxRank) {
  const Imbalance im = imbalance_of("peak", {{0, 4}, {1, 8}, {2, 2}, {3, 8}});
  EXPECT_EQ(im.max_bytes, 8);
  EXPECT_EQ(im.max_rank, 1);
  EXPECT_EQ(im.median, 6.0);
  ASSERT_TRUE(im.ratio);
  EXPECT_DOUBLE_EQ(*im.ratio, 8.0 / 6.0);
  EXPECT_EQ(imbalance_json(im)["median_bytes"], 6);
  EXPECT_EQ(median_json(2.5), 2.5);
  std::ostringstream line;
  write_imbalance_line(line, im);
  EXPECT_EQ(line.str(), "  peak              1.33x   max 8 B (rank 1), median 6 B\n");
}

TEST(RankImbalance, AZeroMedianHasNoRatio) {
  const Imbalance im = imbalance_of("kv cache", {{0, 0}, {1, 0}, {2, 5}});
  EXPECT_FALSE(im.ratio);
  EXPECT_EQ(ratio_text(im), "-");
  EXPECT_TRUE(imbalance_json(im)["ratio"].is_null());
  EXPECT_EQ(median_of({}), 0.0);
  EXPECT_EQ(median_of({3, 1, 2}), 2.0);
}

}  // namespace
}  // namespace oomscope::ranks
