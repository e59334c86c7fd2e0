// The store's memory bound: past the per-rank limit the older half is merged two into one, keeping every
// byte figure's maximum (a spike survives any number of thinnings) and the later counter values.
#include <gtest/gtest.h>

#include "core/live/client/store.h"

namespace oomscope::live {
namespace {

Sample sample(std::int64_t t, std::int64_t allocated, std::int64_t ooms) {
  Sample s;
  s.t = t;
  s.set(Field::Step, t);
  s.set(Field::Allocated, allocated);
  s.set(Field::Ooms, ooms);
  return s;
}

TEST(LiveStoreThinning, StaysWithinTheLimitAndKeepsTheSpike) {
  Store st;
  st.set_sample_budget(Store::kMinSamplesPerRank * sizeof(Sample));  // the smallest limit: 4,096 samples
  ASSERT_EQ(st.samples_per_rank_limit(), Store::kMinSamplesPerRank);
  constexpr std::int64_t kCount = 100'000;
  constexpr std::int64_t kSpikeAt = 1'234;
  for (std::int64_t t = 0; t < kCount; ++t)
    st.on_sample(0, sample(t, t == kSpikeAt ? 1'000'000 : 100 + (t % 7), t / 1000));
  const RankSeries& r = st.ranks()[0];
  EXPECT_LE(r.samples.size(), Store::kMinSamplesPerRank);
  EXPECT_EQ(static_cast<std::int64_t>(r.samples.size()) + r.thinned, kCount);
  EXPECT_GT(r.thinned_until, kSpikeAt);
  // Times still rise, the newest samples are untouched, the spike's value survives.
  std::int64_t max_alloc = 0;
  for (std::size_t i = 1; i < r.samples.size(); ++i) EXPECT_LT(r.samples[i - 1].t, r.samples[i].t);
  for (const Sample& s : r.samples) max_alloc = std::max(max_alloc, s.get(Field::Allocated));
  EXPECT_EQ(max_alloc, 1'000'000);
  EXPECT_EQ(r.samples.back().t, kCount - 1);
  EXPECT_EQ(r.samples.back().get(Field::Ooms), (kCount - 1) / 1000);
  // A merged sample keeps the later counter, not the larger of unrelated fields' values.
  EXPECT_EQ(r.samples.front().t, 0);
  EXPECT_GE(r.samples.front().get(Field::Step), 1);
}

TEST(LiveStoreThinning, MergesTwoIntoOne) {
  RankSeries r;
  for (std::int64_t t = 0; t < 8; ++t) r.samples.push_back(sample(t, t % 2 ? 50 : 10, t));
  r.samples[2].values[static_cast<std::size_t>(Field::Allocated)] = 90;
  thin_older_half(r);
  ASSERT_EQ(r.samples.size(), 6u);  // 4 older -> 2, 4 newer kept
  EXPECT_EQ(r.thinned, 2);
  EXPECT_EQ(r.thinned_until, 3);
  EXPECT_EQ(r.samples[0].t, 0);
  EXPECT_EQ(r.samples[0].get(Field::Allocated), 50);  // max(10, 50)
  EXPECT_EQ(r.samples[0].get(Field::Ooms), 1);        // the later one
  EXPECT_EQ(r.samples[1].get(Field::Allocated), 90);  // max(90, 50)
  EXPECT_EQ(r.samples[2].t, 4);
}

TEST(LiveStoreThinning, ManyRanksShareTheBudget) {
  Store st;
  for (int rank = 0; rank < 64; ++rank) st.on_sample(rank, sample(1, 1, 0));
  EXPECT_EQ(st.samples_per_rank_limit(), Store::kDefaultSampleBudgetBytes / sizeof(Sample) / 64);
}

}  // namespace
}  // namespace oomscope::live
