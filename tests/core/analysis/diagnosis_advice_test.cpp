// Advice that fits the case: needs after a fix respect the other phase's peak, fix sets, donation of
// gradient functions and eager programs, platform-specific pool advice, growth wording, host offload,
// a leak, an OOM with AllocatorRetry.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/analysis/diagnosis/diagnosis_rules.h"

namespace oomscope::analysis {
namespace {

constexpr std::int64_t MiB = 1024 * 1024;

const DiagnosisLine* find(const std::vector<DiagnosisLine>& lines, const std::string& rule) {
  for (const DiagnosisLine& l : lines)
    if (l.rule == rule) return &l;
  return nullptr;
}

// The fused-attention capture's figures: a forward split-K peak and a backward peak of its own.
DiagnosisInput fused_attention(std::int64_t capacity) {
  DiagnosisInput in;
  in.module = "jit_loss_fn";
  in.has_plan = in.has_heap_peak = true;
  in.plan_peak_bytes = 497 * MiB;
  in.parameters_bytes = in.parameter_role_bytes = 96 * MiB;
  in.outputs_bytes = in.output_role_bytes = 96 * MiB;
  in.gradient_matched_bytes = 96 * MiB;
  in.temp_bytes = 305 * MiB;
  in.forward_transient_bytes = 288 * MiB;
  in.forward_kept_bytes = 16 * MiB;
  in.peak_phase = "forward";
  in.peak_instruction = "loop_reduce_fusion";
  in.other_phase = "backward";
  in.other_phase_instruction = "gemm_fusion_dot.6";
  in.other_phase_peak_bytes = 448 * MiB;
  in.patterns.push_back({"split-k-partials", "gemm_fusion_dot.3", "f32[2,4096,6144]", 192 * MiB,
                         "loop_reduce_fusion", "f32[2,2048,3,16,128]", 96 * MiB, 2, 1, "attn.py:92"});
  in.capacity_bytes = capacity;
  in.capacity_from_user = true;
  in.platform = "GPU (AMD)";
  return in;
}

TEST(DiagnosisAdvice, TheNeedAfterAFixNeverDropsBelowTheOtherPhasesPeak) {
  const auto lines = diagnose(fused_attention(400 * MiB));
  const DiagnosisLine* split = find(lines, "split-k-partials");
  ASSERT_NE(split, nullptr);
  ASSERT_EQ(split->fixes.size(), 1u);
  EXPECT_EQ(split->fixes[0].saving_bytes, 192 * MiB);
  EXPECT_EQ(split->fixes[0].needed_after_bytes, 448 * MiB);  // not 497 - 192 = 305
  EXPECT_EQ(split->fixes[0].floor_bytes, 448 * MiB);
  EXPECT_EQ(split->fixes[0].fits_after, false);
  ASSERT_NE(find(lines, "peak-phase"), nullptr);
  EXPECT_NE(find(lines, "peak-phase")->finding.find("448 MiB at gemm_fusion_dot.6"), std::string::npos);
  ASSERT_NE(find(lines, "mostly-forward-transient"), nullptr);
  EXPECT_EQ(find(lines, "mostly-forward"), nullptr);  // remat is not proposed for transients
  // Gradients are not donation candidates.
  EXPECT_EQ(find(lines, "no-donation"), nullptr);
  EXPECT_NE(find(lines, "donation-would-not-help"), nullptr);
}

TEST(DiagnosisAdvice, FixSetsSayWhichFixesTogetherMakeItFit) {
  DiagnosisInput in = fused_attention(300 * MiB);
  in.gradient_matched_bytes = 0;
  in.donatable_bytes = 96 * MiB;  // an update step: donation lowers both phases
  const auto lines = diagnose(in);
  const DiagnosisLine* sets = find(lines, "fix-sets");
  ASSERT_NE(sets, nullptr);
  // donation (96 MiB, both phases) -> max(401, 352) = 401 first; + split-K (192 MiB, forward only) ->
  // max(209, 352) = 352; then nothing lowers the backward's peak further.
  EXPECT_NE(
      sets->finding.find("no-donation -> needs 401 MiB; no-donation + split-k-partials -> needs 352 MiB"),
      std::string::npos)
      << sets->finding;
  EXPECT_EQ(sets->finding.find("mostly-forward-transient"), std::string::npos) << sets->finding;
  EXPECT_NE(sets->finding.find("no set of the fixes above"), std::string::npos) << sets->finding;
  // With a pool above the backward's peak less the donation, a set fits.
  in.capacity_bytes = 360 * MiB;
  const auto fitting = diagnose(in);
  const DiagnosisLine* fit = find(fitting, "fix-sets");
  ASSERT_NE(fit, nullptr);
  EXPECT_NE(fit->finding.find("make the step fit"), std::string::npos) << fit->finding;
  EXPECT_NE(fit->finding.find("needs 352 MiB (fits)"), std::string::npos) << fit->finding;
}

TEST(DiagnosisAdvice, EagerProgramsLeadWithTheRuntimeAndNeedJitToDonate) {
  DiagnosisInput in;
  in.module = "jit_add";
  in.has_plan = in.has_heap_peak = true;
  in.eager = true;
  in.plan_peak_bytes = 384 * MiB;
  in.parameters_bytes = in.parameter_role_bytes = 256 * MiB;
  in.outputs_bytes = in.output_role_bytes = 128 * MiB;
  in.donatable_bytes = 128 * MiB;
  in.capacity_bytes = 144LL * 1024 * MiB;
  in.device_memory_bytes = 192LL * 1024 * MiB;
  in.platform = "GPU (AMD)";
  const auto lines = diagnose(in);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rule, "eager");
  const DiagnosisLine* donation = find(lines, "no-donation");
  ASSERT_NE(donation, nullptr);
  EXPECT_NE(donation->fixes[0].action.find("jax.jit"), std::string::npos);
  EXPECT_NE(pool_fraction_note(in).find("JAX's default XLA_PYTHON_CLIENT_MEM_FRACTION=0.75"),
            std::string::npos);
  in.capacity_bytes = 96LL * 1024 * MiB;
  EXPECT_NE(pool_fraction_note(in).find("about 0.50"), std::string::npos);
  in.platform = "TPU";
  EXPECT_EQ(pool_fraction_note(in), "");  // no memory fraction on TPU
}

TEST(DiagnosisAdvice, TpuPoolAdviceHasNoMemFraction) {
  DiagnosisInput in = fused_attention(400 * MiB);
  in.platform = "TPU";
  const auto lines = diagnose(in);
  const DiagnosisLine* pool = find(lines, "plan-exceeds-pool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->fixes[0].action.find("XLA_PYTHON_CLIENT_MEM_FRACTION"), std::string::npos);
}

TEST(DiagnosisAdvice, GrowthIsWordedByWhatTheStepsShow) {
  EXPECT_EQ(growth_wording({104 * MiB, 104 * MiB, 104 * MiB}), "+104 MiB per execution");
  EXPECT_EQ(growth_wording({300 * MiB, 104 * MiB, 104 * MiB}),
            "first call +300 MiB, then +104 MiB per execution");
  EXPECT_EQ(growth_wording({8 * MiB, -8 * MiB, 8 * MiB}),
            "not consistent (steps +8.00 MiB, -8.00 MiB, +8.00 MiB)");
  EXPECT_EQ(growth_wording({}), "");
}

TEST(DiagnosisAdvice, ALeakAcrossStepsAndAnOomWithAllocatorRetry) {
  DiagnosisInput in;
  in.module = "jit_step";
  in.has_plan = in.has_heap_peak = true;
  in.plan_peak_bytes = 788 * MiB;
  in.outputs_bytes = 104 * MiB;
  in.temp_bytes = 500 * MiB;
  in.capacity_bytes = 2860 * MiB;
  in.executions = 10;
  in.growth_per_execution = 104 * MiB;
  in.growth_consistent = true;
  in.growth_steps = std::vector<std::int64_t>(9, 104 * MiB);
  in.in_use_at_last_start = 1252 * MiB;
  in.host_events_between = {"$<unknown> append"};
  in.live_at_last_start = {{"outputs of jit_step execution 9", 104 * MiB, false, true}};
  in.retry_count = 3;
  in.retry_longest_ps = 10'000'000'000'000;
  in.never_launched = 1;
  in.last_never_launched = true;
  const auto lines = diagnose(in);
  const DiagnosisLine* growth = find(lines, "growth");
  ASSERT_NE(growth, nullptr);
  EXPECT_NE(growth->finding.find("+104 MiB per execution"), std::string::npos) << growth->finding;
  EXPECT_NE(growth->finding.find("1.00x the non-aliased outputs"), std::string::npos) << growth->finding;
  EXPECT_NE(growth->cause.find("a leak across steps"), std::string::npos);
  const DiagnosisLine* retry = find(lines, "allocator-retry");
  ASSERT_NE(retry, nullptr);
  EXPECT_NE(retry->finding.find("longest 10.00 s, 1 execution(s) never started"), std::string::npos)
      << retry->finding;
  EXPECT_EQ(retry->provenance, Provenance::Measured);
}

TEST(DiagnosisAdvice, HostOffloadIsReportedAsSuchAndAnUnseenTempBlockIsSaid) {
  DiagnosisInput in;
  in.module = "jit_f";
  in.has_plan = in.has_heap_peak = true;
  in.plan_peak_bytes = 20LL * 1024 * MiB;
  in.temp_bytes = 20LL * 1024 * MiB;
  in.host_parameters_bytes = in.host_parameters_aliased_bytes = 15LL * 1024 * MiB;
  in.host_parameter_count = 3;
  in.executions = 100;
  in.temp_block_seen = false;
  in.platform = "TPU";
  const auto lines = diagnose(in);
  const DiagnosisLine* offload = find(lines, "host-offload");
  ASSERT_NE(offload, nullptr);
  EXPECT_NE(offload->finding.find("3 parameter(s) of 15.0 GiB aliased with outputs"), std::string::npos)
      << offload->finding;
  const DiagnosisLine* unseen = find(lines, "temp-unseen");
  ASSERT_NE(unseen, nullptr);
  // A hedge: the capture cannot show it; without a reserved figure nothing more is cited.
  EXPECT_NE(unseen->cause.find("the capture cannot show where it came from"), std::string::npos)
      << unseen->cause;
  EXPECT_NE(unseen->cause.find("may reserve program scratch"), std::string::npos) << unseen->cause;
  EXPECT_EQ(unseen->cause.find("bytes_reserved"), std::string::npos) << unseen->cause;
  // The shared TPU capture's figures (tests/cli/test_reserved_series.py reads them from the raw events): the
  // reserved peak that no allocation event asks for is cited, and it stays a hedge.
  in.reserved_allocator = "TPU_0";
  in.reserved_peak_bytes = 21491712000;
  in.reserved_peak_time_ps = 19500056406000;
  in.largest_allocation_bytes = 5LL * 1024 * MiB;
  const auto cited_lines = diagnose(in);  // kept: find() points into it
  const DiagnosisLine* cited = find(cited_lines, "temp-unseen");
  ASSERT_NE(cited, nullptr);
  EXPECT_NE(cited->cause.find("the capture cannot show where it came from; what it does show: TPU_0's "
                              "bytes_reserved stat reaches 20.0 GiB at 19.500056 s, more than any allocation "
                              "event asks for (the largest is 5.00 GiB). The TPU runtime may reserve program "
                              "scratch"),
            std::string::npos)
      << cited->cause;
  // A reserved peak no larger than an allocation shows nothing held outside the events: not cited.
  in.largest_allocation_bytes = 21491712000;
  EXPECT_EQ(find(diagnose(in), "temp-unseen")->cause.find("bytes_reserved"), std::string::npos);
  in.temp_block_seen = true;
  EXPECT_EQ(find(diagnose(in), "temp-unseen"), nullptr);
}

}  // namespace
}  // namespace oomscope::analysis
