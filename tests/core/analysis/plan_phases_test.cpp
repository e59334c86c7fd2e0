// Roles by lifetime, the phase of the peak and each phase's own peak, on hand-built plans: a forward
// transient peak (a split-K GEMM's partials freed before the backward), a backward peak, and a program
// without a backward.

#include <gtest/gtest.h>

#include "core/analysis/plan/plan.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using testing::array_shape;
using testing::kF32;
using testing::PlanBuilder;

constexpr std::int64_t MiB = 1 << 20;

// A one-layer training step: x (kept) and the split-K partials + their reduce (transients) in the forward,
// then two backward temporaries. Sizes in MiB are chosen by the test.
struct Step {
  PlanBuilder p;
  Step(std::int64_t kept, std::int64_t partials, std::int64_t reduced, std::int64_t grad1,
       std::int64_t grad2) {
    p.instruction(1, "fusion.x", "fusion", array_shape(kF32, {kept * MiB / 4}), "jit(step)/jvp(mlp)/tanh");
    auto& dot = p.instruction(2, "gemm_fusion_dot.3", "fusion", array_shape(kF32, {2, partials * MiB / 8}),
                              "jit(step)/jvp(mlp)/dot_general");
    auto& reduce = p.instruction(3, "loop_reduce_fusion", "fusion", array_shape(kF32, {reduced * MiB / 4}),
                                 "jit(step)/jvp(mlp)/dot_general");
    reduce.add_operand_ids(2);
    (void)dot;
    p.instruction(4, "gemm_fusion_dot.6", "fusion", array_shape(kF32, {grad1 * MiB / 4}),
                  "jit(step)/transpose(jvp(mlp))/dot_general");
    p.instruction(5, "fusion.g2", "fusion", array_shape(kF32, {grad2 * MiB / 4}),
                  "jit(step)/transpose(jvp(mlp))/mul");
    auto& temp = p.allocation(0, 1 << 30, {10, 11, 12, 13, 14});
    (void)temp;
    p.buffer(10, kept * MiB, 1);
    p.buffer(11, partials * MiB, 2);
    p.buffer(12, reduced * MiB, 3);
    p.buffer(13, grad1 * MiB, 4);
    p.buffer(14, grad2 * MiB, 5);
    auto& t = p.trace();
    PlanBuilder::alloc(t, 10, "fusion.x");
    PlanBuilder::alloc(t, 11, "gemm_fusion_dot.3");
    PlanBuilder::alloc(t, 12, "loop_reduce_fusion");
    PlanBuilder::free(t, 11, "loop_reduce_fusion");
    PlanBuilder::free(t, 12, "fusion.x");            // consumed in the forward
    PlanBuilder::alloc(t, 13, "gemm_fusion_dot.6");  // event 5: the backward starts
    PlanBuilder::alloc(t, 14, "fusion.g2");
    PlanBuilder::free(t, 13, "fusion.g2");
    PlanBuilder::free(t, 10, "fusion.g2");
    PlanBuilder::free(t, 14, "fusion.g2");
  }
  const BufferRole* role_of(const PlanAnalysis& a, std::int64_t id) {
    for (const auto& b : a.live_at_peak)
      if (b.logical_buffer_id == id) return &b.role;
    return nullptr;
  }
};

TEST(PlanPhases, AForwardTransientPeakIsNotKeptForTheBackward) {
  Step s(/*kept=*/16, /*partials=*/192, /*reduced=*/96, /*grad1=*/128, /*grad2=*/64);
  const PlanAnalysis a = analyze_plan(s.p.proto());
  EXPECT_EQ(a.backward_start_event, 5);
  EXPECT_EQ(a.backward_end_event, 9);
  EXPECT_EQ(a.heap_peak_bytes, (16 + 192 + 96) * MiB);
  EXPECT_EQ(a.peak_phase, Phase::Forward);
  ASSERT_NE(s.role_of(a, 11), nullptr);
  EXPECT_EQ(*s.role_of(a, 11), BufferRole::ForwardTransient);  // freed at event 3, before the backward
  EXPECT_EQ(*s.role_of(a, 12), BufferRole::ForwardTransient);
  EXPECT_EQ(*s.role_of(a, 10), BufferRole::ForwardKept);  // freed at event 8, inside the backward
  EXPECT_EQ(a.role_bytes(BufferRole::ForwardTransient), 288 * MiB);
  EXPECT_EQ(a.role_bytes(BufferRole::ForwardKept), 16 * MiB);
  const auto other = a.other_phase_peak();
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->phase, Phase::Backward);
  EXPECT_EQ(other->heap_bytes, (16 + 128 + 64) * MiB);
  EXPECT_EQ(other->instruction, "fusion.g2");
  ASSERT_EQ(a.patterns.size(), 1u);
  EXPECT_EQ(a.patterns[0].kind, PatternKind::SplitKPartials);
  EXPECT_EQ(a.patterns[0].factor, 2);
  EXPECT_EQ(a.patterns[0].bytes, 192 * MiB);
}

TEST(PlanPhases, ABackwardPeakNamesTheForwardAsTheOtherPhase) {
  Step s(/*kept=*/16, /*partials=*/32, /*reduced=*/16, /*grad1=*/256, /*grad2=*/128);
  const PlanAnalysis a = analyze_plan(s.p.proto());
  EXPECT_EQ(a.peak_phase, Phase::Backward);
  EXPECT_EQ(a.peak_instruction, "fusion.g2");
  EXPECT_EQ(a.heap_peak_bytes, (16 + 256 + 128) * MiB);
  EXPECT_EQ(a.role_bytes(BufferRole::Backward), 384 * MiB);
  EXPECT_EQ(a.role_bytes(BufferRole::ForwardKept), 16 * MiB);  // live at the peak: kept by definition
  const auto other = a.other_phase_peak();
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->phase, Phase::Forward);
  EXPECT_EQ(other->heap_bytes, (16 + 32 + 16) * MiB);
  EXPECT_TRUE(a.patterns.empty());  // the partials are not live at the peak
}

TEST(PlanPhases, WithoutABackwardForwardBuffersAreTransients) {
  PlanBuilder p;
  p.instruction(1, "fusion.1", "fusion", array_shape(kF32, {MiB}), "jit(f)/jvp(g)/sin");
  p.instruction(2, "fusion.2", "fusion", array_shape(kF32, {MiB}), "jit(f)/cos");
  p.allocation(0, 1 << 30, {1, 2});
  p.buffer(1, 4 * MiB, 1);
  p.buffer(2, 4 * MiB, 2);
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1, "fusion.1");
  PlanBuilder::alloc(t, 2, "fusion.2");
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.backward_start_event, -1);
  EXPECT_EQ(a.peak_phase, Phase::NoBackward);
  EXPECT_FALSE(a.other_phase_peak().has_value());
  EXPECT_EQ(a.role_bytes(BufferRole::ForwardTransient), 4 * MiB);
  EXPECT_EQ(a.role_bytes(BufferRole::Other), 4 * MiB);
  EXPECT_STREQ(to_string(BufferRole::ForwardTransient), "forward-transient");
  EXPECT_STREQ(to_string(Phase::NoBackward), "no backward");
}

}  // namespace
}  // namespace oomscope::analysis
