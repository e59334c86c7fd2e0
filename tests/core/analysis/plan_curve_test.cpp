// The program-order curve, its min/max downsampler, the remat count and the speed on a big module.

#include "core/analysis/plan/plan_curve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include "core/analysis/plan/plan.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using namespace testing;

TEST(PlanDownsample, ShortSeriesComeBackWhole) {
  const std::vector<std::int64_t> v{5, 1, 9};
  const auto out = downsample_min_max(v, 10);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2], (CurvePoint{2, 9}));
  EXPECT_TRUE(downsample_min_max(std::vector<std::int64_t>{}, 10).empty());
}

TEST(PlanDownsample, KeepsEveryBucketsExtremesTheEndsAndThePeak) {
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> v(100000);
  for (auto& x : v) x = static_cast<std::int64_t>(rng() % 1000000);
  v[31337] = 5000000;  // the peak
  v[77777] = -5;       // the global minimum
  const auto out = downsample_min_max(v, 500);
  EXPECT_LE(out.size(), 500u);
  EXPECT_GE(out.size(), 400u);
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(), [](auto& a, auto& b) { return a.index < b.index; }));
  EXPECT_EQ(out.front().index, 0);
  EXPECT_EQ(out.back().index, 99999);
  auto has = [&](std::int64_t i) {
    return std::any_of(out.begin(), out.end(),
                       [&](auto& p) { return p.index == i && p.value == v[static_cast<std::size_t>(i)]; });
  };
  EXPECT_TRUE(has(31337));
  EXPECT_TRUE(has(77777));
  // Each bucket's max survives: the max of the output over any bucket's range equals the input's.
  const std::size_t buckets = (500 - 3) / 2;
  for (std::size_t b = 0; b < buckets; b += 37) {
    const std::size_t lo = b * v.size() / buckets, hi = (b + 1) * v.size() / buckets;
    const auto in_max = *std::max_element(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                          v.begin() + static_cast<std::ptrdiff_t>(hi));
    std::int64_t out_max = INT64_MIN;
    for (auto& p : out)
      if (p.index >= static_cast<std::int64_t>(lo) && p.index < static_cast<std::int64_t>(hi))
        out_max = std::max(out_max, p.value);
    EXPECT_EQ(out_max, in_max) << "bucket " << b;
  }
}

TEST(PlanDownsample, KeepIndexIsHonouredAndTinyBudgetsStillWork) {
  std::vector<std::int64_t> v(1000, 1);
  v[10] = 50;
  v[900] = 50;  // a later equal maximum the caller wants to mark
  const auto out = downsample_min_max(v, 2, std::size_t{900});
  EXPECT_LE(out.size(), 4u);
  EXPECT_TRUE(std::any_of(out.begin(), out.end(), [](auto& p) { return p.index == 900; }));
  const auto first = downsample_min_max(v, 4);
  EXPECT_TRUE(std::any_of(first.begin(), first.end(), [](auto& p) { return p.index == 10; }));
}

TEST(PlanCurve, RematInstructionsAreCountedOutsideFusionBodies) {
  PlanBuilder p;
  p.instruction(1, "fusion.3.remat", "fusion", array_shape(kF32, {1})).add_called_computation_ids(9);
  p.instruction(2, "fusion.3.remat2", "fusion", array_shape(kF32, {1}));
  p.instruction(3, "copy.remat.1", "copy", array_shape(kF32, {1}));
  p.instruction(4, "add.7", "add", array_shape(kF32, {1}));
  auto* body = p.proto().mutable_hlo_module()->add_computations();  // the fused body of fusion.3.remat
  body->set_id(9);
  body->set_name("fused_computation.remat");
  auto* inner = body->add_instructions();
  inner->set_name("multiply.remat");
  inner->set_id(90);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.remat_instructions, 3);
  EXPECT_EQ(a.instruction_count, 4);
}

// 50k buffers allocated and freed in a sawtooth with SHARE_WITH every tenth: 100k+ events.
TEST(PlanCurve, BigModuleIsFast) {
  PlanBuilder p;
  p.instruction(1, "big", "fusion", array_shape(kF32, {256}), "jit(f)/jvp(g)/x");
  constexpr int kBuffers = 50000;
  auto& temp = p.allocation(0, 1LL << 40, {});
  for (int i = 1; i <= kBuffers; ++i) {
    p.buffer(i, 1024 + i, 1);
    temp.add_assigned()->set_logical_buffer_id(i);
  }
  auto& t = p.trace();
  for (int i = 1; i <= kBuffers; ++i) {
    const std::string name = "op." + std::to_string(i % 997);
    if (i % 10 == 0) {
      PlanBuilder::share(t, i, i - 1, name);  // i-1 is still live: no change
    } else {
      PlanBuilder::alloc(t, i, name);
    }
    if (i % 100 == 0) {  // free a stretch of older buffers
      for (int j = i - 99; j <= i - 50; ++j) PlanBuilder::free(t, j, name);
    }
  }
  ASSERT_GE(t.events_size(), 70000);
  while (t.events_size() < 100000) PlanBuilder::alloc(t, 99999999, "pad");  // unknown ids
  // CPU time as well as wall time: the wall figure moves with the machine's load.
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  const PlanAnalysis a = analyze_plan(p.proto());
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  EXPECT_EQ(a.trace_event_count, t.events_size());
  EXPECT_GT(a.heap_peak_bytes, 0);
  EXPECT_EQ(a.curve.size(), static_cast<std::size_t>(t.events_size()));
  EXPECT_EQ(*std::max_element(a.curve.heap_bytes.begin(), a.curve.heap_bytes.end()), a.heap_peak_bytes);
  std::int64_t live_sum = 0;
  for (const auto& b : a.live_at_peak) live_sum += b.size_bytes;
  EXPECT_EQ(live_sum, a.heap_peak_bytes);
  EXPECT_EQ(a.curve.instruction_names.size(), 998u);
  // The speed is a reported figure, not a pass/fail bound (the project keeps speed targets in benchmarks).
  RecordProperty("analyze_ms", std::to_string(ms));
  std::printf("analyze_plan on %d events, %zu buffers live at the peak: %.1f ms CPU, %.1f ms wall\n",
              t.events_size(), a.live_at_peak.size(), ms, wall_ms);
}

}  // namespace
}  // namespace oomscope::analysis
