#include "core/analysis/diagnosis/diagnosis_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace oomscope::analysis {
namespace {

constexpr std::int64_t MiB = 1024 * 1024;

// A step that fits with room to spare and triggers nothing: the control for every rule.
DiagnosisInput healthy() {
  DiagnosisInput in;
  in.module = "jit_step";
  in.has_plan = in.has_heap_peak = true;
  in.plan_peak_bytes = 800 * MiB;
  in.parameters_bytes = 300 * MiB;
  in.donated_bytes = 300 * MiB;
  in.outputs_bytes = 100 * MiB;
  in.temp_bytes = 400 * MiB;
  in.forward_kept_bytes = 250 * MiB;
  in.backward_bytes = 100 * MiB;
  in.workspace_bytes = 10 * MiB;
  in.other_bytes = 40 * MiB;
  in.capacity_bytes = 4096 * MiB;
  in.executions = 5;
  in.growth_per_execution = 0;
  in.in_use_at_last_start = 400 * MiB;
  in.live_at_last_start = {{"outputs of jit_step execution 4", 300 * MiB, false, true}};
  return in;
}

bool has_rule(const std::vector<DiagnosisLine>& lines, const std::string& rule) {
  return std::any_of(lines.begin(), lines.end(), [&](const DiagnosisLine& l) { return l.rule == rule; });
}

TEST(DiagnosisRules, HealthyStepOnlySaysItFits) {
  const auto lines = diagnose(healthy());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rule, "plan-fits");
  EXPECT_EQ(lines[0].provenance, Provenance::Derived);
}

TEST(DiagnosisRules, PlanExceedsPoolWithForwardSplit) {
  DiagnosisInput in = healthy();
  in.plan_peak_bytes = 3809 * MiB;  // 3.72 GiB
  in.forward_kept_bytes = 3108 * MiB;
  in.capacity_bytes = 2857 * MiB;  // 2.79 GiB
  in.device_memory_bytes = 288LL * 1024 * MiB;
  in.peak_buffers = {{256 * MiB, "f32[8,8,1024,1024]", "forward-kept", "model.py:42", 11},
                     {256 * MiB, "f32[8,8,1024,1024]", "forward-kept", "model.py:42", 11},
                     {64 * MiB, "bf16[8,1024,4096]", "forward-kept", "model.py:50", 16}};
  const auto lines = diagnose(in);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].rule, "plan-exceeds-pool");
  EXPECT_NE(lines[0].finding.find("3.72 GiB > the pool's 2.79 GiB"), std::string::npos) << lines[0].finding;
  ASSERT_EQ(lines[0].fixes.size(), 1u);  // the pool fraction
  EXPECT_EQ(lines[0].fixes[0].fits_after, true);
  EXPECT_EQ(lines[1].rule, "mostly-forward");
  EXPECT_EQ(lines[1].depth, 1);
  // remat saves forward-kept less the largest buffer; the fused-attention check names the 2 S*S buffers.
  EXPECT_EQ(lines[1].fixes[0].saving_bytes, (3108 - 256) * MiB);
  EXPECT_EQ(lines[1].fixes[0].fits_after, true);
  EXPECT_EQ(lines[1].fixes[1].saving_bytes, 1554 * MiB);
  EXPECT_EQ(lines[1].fixes[1].fits_after, true);  // 3809 - 1554 = 2255 MiB <= 2857 MiB
  EXPECT_EQ(lines[1].fixes[1].needed_after_bytes, 2255 * MiB);
  EXPECT_EQ(attention_score_bytes(in), 512 * MiB);
  EXPECT_NE(lines[1].fixes.back().action.find("2 B*H*S*S buffers"), std::string::npos);
}

TEST(DiagnosisRules, ExceedsWithoutDeviceMemoryStillOffersTheFractionWithoutAVerdict) {
  DiagnosisInput in = healthy();
  in.plan_peak_bytes = 5000 * MiB;
  in.forward_kept_bytes = 0;
  in.backward_bytes = 3000 * MiB;
  in.peak_buffers = {{1000 * MiB, "f32[1000,262144]", "backward", "", 11}};
  const auto lines = diagnose(in);
  EXPECT_EQ(lines[0].rule, "plan-exceeds-pool");
  EXPECT_FALSE(lines[0].fixes[0].fits_after.has_value());
  EXPECT_TRUE(has_rule(lines, "mostly-backward"));
  EXPECT_FALSE(has_rule(lines, "mostly-forward"));
  const auto back = rule_mostly_backward(in);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->fixes.size(), 2u);  // shard + the f32 copies
  EXPECT_EQ(back->fixes[1].saving_bytes, 500 * MiB);
  EXPECT_FALSE(rule_mostly_backward(healthy()));
}

TEST(DiagnosisRules, WorkspaceLine) {
  DiagnosisInput in = healthy();
  in.workspace_bytes = 900 * MiB;
  EXPECT_TRUE(rule_workspace(in));
  EXPECT_FALSE(rule_workspace(healthy()));
}

TEST(DiagnosisRules, MostlyOtherLine) {
  DiagnosisInput in = healthy();
  in.other_bytes = 600 * MiB;
  const auto l = rule_mostly_other(in);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->depth, 1);
  EXPECT_FALSE(l->fixes[0].saving_bytes.has_value());
  EXPECT_FALSE(rule_mostly_other(healthy()));
}

TEST(DiagnosisRules, GrowthAtOneTimesTheOutputsIsALeak) {
  DiagnosisInput in = healthy();
  in.growth_per_execution = 104 * MiB;
  in.outputs_bytes = 104 * MiB;
  in.growth_consistent = true;
  in.host_events_between = {"$<unknown> append"};
  const auto l = rule_growth(in);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->provenance, Provenance::Measured);
  EXPECT_NE(l->finding.find("= 1.00x the non-aliased outputs"), std::string::npos) << l->finding;
  EXPECT_NE(l->cause.find("leak"), std::string::npos);
  EXPECT_EQ(l->fixes[0].saving_bytes, 4 * 104 * MiB);
  EXPECT_NE(l->fixes[0].action.find("$<unknown> append"), std::string::npos);
  EXPECT_NE(l->fixes[1].action.find("only delays"), std::string::npos);
  in.growth_per_execution = 30 * MiB;  // grows, but not by the outputs
  ASSERT_TRUE(rule_growth(in));
  EXPECT_EQ(rule_growth(in)->cause.find("leak"), std::string::npos);
  in.growth_consistent = false;  // control: one-off growth
  EXPECT_FALSE(rule_growth(in));
  EXPECT_FALSE(rule_growth(healthy()));
}

TEST(DiagnosisRules, NoDonation) {
  DiagnosisInput in = healthy();
  in.donated_bytes = 0;
  in.parameters_bytes = 1902 * MiB;
  in.donatable_bytes = 1902 * MiB;
  const auto l = rule_no_donation(in);
  ASSERT_TRUE(l);
  EXPECT_NE(l->finding.find("no parameter is donated"), std::string::npos);
  EXPECT_EQ(l->fixes[0].saving_bytes, 1902 * MiB);
  EXPECT_FALSE(rule_no_donation(healthy()));  // everything donated, nothing donatable
}

TEST(DiagnosisRules, OtherLiveArraysTakeTheRoom) {
  DiagnosisInput in = healthy();
  in.in_use_at_last_start = 3900 * MiB;  // 196 MiB left, the step allocates 500 MiB
  in.live_at_last_start = {{"BufferFromHostBuffer", 3000 * MiB, false, false},
                           {"outputs of jit_step execution 4", 300 * MiB, false, true}};
  const auto l = rule_other_live_arrays(in);
  ASSERT_TRUE(l);
  EXPECT_NE(l->finding.find("the largest came from BufferFromHostBuffer"), std::string::npos) << l->finding;
  EXPECT_EQ(l->fixes[0].fits_after, true);
  in.live_at_last_start[0].before_capture = true;
  in.live_at_last_start[0].label = "allocated before the capture started";
  EXPECT_NE(rule_other_live_arrays(in)->fixes[0].action.find("profile earlier"), std::string::npos);
  EXPECT_FALSE(rule_other_live_arrays(healthy()));
}

TEST(DiagnosisRules, AllocatorRetryAndNeverLaunched) {
  DiagnosisInput in = healthy();
  in.retry_count = 3;
  in.retry_longest_ps = 10'000'000'000'000;
  in.never_launched = 1;
  in.last_never_launched = true;
  auto l = rule_allocator_retry(in);
  ASSERT_TRUE(l);
  EXPECT_NE(l->finding.find("longest 10.00 s, 1 execution(s) never started"), std::string::npos)
      << l->finding;
  in.retry_count = 0;
  l = rule_allocator_retry(in);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->rule, "never-launched");
  EXPECT_FALSE(rule_allocator_retry(healthy()));
}

TEST(DiagnosisRules, XlaRemat) {
  DiagnosisInput in = healthy();
  in.remat_instructions = 89;
  const auto l = rule_xla_remat(in);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->provenance, Provenance::Read);
  EXPECT_NE(l->finding.find("89 instructions"), std::string::npos);
  EXPECT_FALSE(rule_xla_remat(healthy()));
}

TEST(DiagnosisRules, UserCapacityAnswersWouldItFit) {
  DiagnosisInput in = healthy();
  in.capacity_bytes = 700 * MiB;
  in.capacity_from_user = true;
  const auto lines = rule_plan_vs_pool(in);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rule, "plan-exceeds-pool");
  EXPECT_NE(lines[0].finding.find("the given pool of 700 MiB"), std::string::npos) << lines[0].finding;
  in.capacity_bytes = 850 * MiB;  // fits, but tightly
  const auto fits = rule_plan_vs_pool(in);
  EXPECT_EQ(fits[0].rule, "plan-fits");
  EXPECT_NE(fits[0].cause.find("contiguous"), std::string::npos);
  in.capacity_bytes.reset();
  EXPECT_TRUE(rule_plan_vs_pool(in).empty());
}

// Every execution has to fit beside what was live at its start: the fix set is checked against the start with
// the most in use, and the sentence names it (gemm at 300 MiB "fit" by the leanest start, not the busiest).
TEST(DiagnosisRules, FixSetsFitBesideTheBusiestStart) {
  DiagnosisInput in = healthy();
  in.capacity_bytes = 700 * MiB;
  in.other_live_at_start = 50 * MiB;
  in.other_live_execution = 3;
  DiagnosisLine line;
  line.rule = "smaller-temps";
  Fix f;
  f.action = "shrink the temporaries";
  f.saving_bytes = 200 * MiB;
  line.fixes.push_back(f);
  auto sets = rule_fix_sets(in, {line});
  ASSERT_TRUE(sets);
  EXPECT_NE(
      sets->finding.find("fixes that together make the step fit 700 MiB: smaller-temps -> needs 600 MiB "
                         "(fits); besides the plan, 50.0 MiB of other arrays was live at the start of "
                         "execution 3 of jit_step (the most of its 5)"),
      std::string::npos)
      << sets->finding;
  in.other_live_at_start = 150 * MiB;  // 600 + 150 > 700
  sets = rule_fix_sets(in, {line});
  ASSERT_TRUE(sets);
  EXPECT_TRUE(sets->finding.starts_with("no set of the fixes above makes the step fit 700 MiB"))
      << sets->finding;
  in.executions = 1;
  in.other_live_execution = 1;
  EXPECT_NE(rule_fix_sets(in, {line})->finding.find("was live at the start of jit_step (measured)"),
            std::string::npos);
}

// The runtime peak over the given pool is said with its execution and reconciled (gemm at 300 MiB: 256 +
// 204).
TEST(DiagnosisRules, RuntimePeakOverThePool) {
  DiagnosisInput in = healthy();
  in.capacity_bytes = 300 * MiB;
  in.runtime_peak_bytes = 460 * MiB;
  in.runtime_peak_time_ps = 5'622'000'000;
  in.runtime_peak_execution = "jit_dot(49) execution 2";
  in.runtime_peak_at_start = 256 * MiB;
  in.runtime_peak_own_bytes = 204 * MiB;
  const auto l = rule_runtime_peak_over_pool(in);
  ASSERT_TRUE(l);
  EXPECT_EQ(
      l->finding,
      "the runtime peak, 460 MiB at 0.005622 s inside jit_dot(49) execution 2, is more than the pool of 300 "
      "MiB (160 MiB over); 256 MiB was in use when that execution started [read] and it had allocated 204 "
      "MiB itself [measured]");
  in.runtime_peak_bytes = 300 * MiB;  // at the pool, not over it
  EXPECT_FALSE(rule_runtime_peak_over_pool(in));
  in.runtime_peak_bytes = 460 * MiB;
  in.capacity_bytes.reset();
  EXPECT_FALSE(rule_runtime_peak_over_pool(in));
}

}  // namespace
}  // namespace oomscope::analysis
