// Donation: allocation flags first, input_output_alias / buffer_donor as cross-checks, and the
// parameters that could be donated because an un-aliased output has their dtype and dimensions.

#include <gtest/gtest.h>

#include "core/analysis/plan/plan.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using namespace testing;

// params: p0 f32[1024] (4096 B), p1 f32[1024], p2 bf16[8] ; result (f32[1024], f32[1024], s32[])
PlanBuilder three_params() {
  PlanBuilder p;
  p.instruction(1, "p0", "parameter", array_shape(kF32, {1024})).set_parameter_number(0);
  p.instruction(2, "p1", "parameter", array_shape(kF32, {1024})).set_parameter_number(1);
  p.instruction(3, "p2", "parameter", array_shape(kBF16, {8})).set_parameter_number(2);
  p.instruction(4, "t", "tuple",
                tuple_shape({array_shape(kF32, {1024}), array_shape(kF32, {1024}), array_shape(kS32, {})}));
  for (int i = 0; i < 3; ++i) {
    p.buffer(10 + i, i == 2 ? 16 : 4096, 1 + i);
    auto& a = p.allocation(i, i == 2 ? 16 : 4096, {10 + i});
    a.set_is_entry_computation_parameter(true);
    a.set_parameter_number(i);
  }
  return p;
}

void alias(PlanBuilder& p, std::int64_t parameter, std::int64_t output) {
  auto* e = p.proto().mutable_hlo_module()->mutable_input_output_alias()->add_entries();
  e->set_parameter_number(parameter);
  e->add_output_shape_index(output);
  e->set_kind(2);
}

TEST(PlanDonation, NothingDonatedListsTheCandidates) {
  PlanBuilder p = three_params();
  const DonationSummary d = analyze_plan(p.proto()).donation;
  EXPECT_EQ(d.parameter_bytes, 4096 * 2 + 16);
  EXPECT_EQ(d.donated_bytes, 0);
  EXPECT_EQ(d.donated_count, 0);
  // p0 and p1 each match one f32[1024] output; p2 (bf16[8]) matches nothing.
  EXPECT_EQ(d.donatable_count, 2);
  EXPECT_EQ(d.donatable_bytes, 8192);
  ASSERT_EQ(d.parameters.size(), 3u);
  EXPECT_EQ(d.parameters[0].name, "p0");
  EXPECT_EQ(d.parameters[0].shape, "f32[1024]");
  EXPECT_EQ(d.parameters[0].matching_output_index, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(d.parameters[1].matching_output_index, (std::vector<std::int64_t>{1}));
  EXPECT_FALSE(d.parameters[2].donatable);
  EXPECT_TRUE(d.inconsistencies.empty());
}

TEST(PlanDonation, FlagsAndAliasAgree) {
  PlanBuilder p = three_params();
  p.proto().mutable_buffer_assignment()->mutable_buffer_allocations(0)->set_maybe_live_out(true);
  alias(p, 0, 0);
  const DonationSummary d = analyze_plan(p.proto()).donation;
  EXPECT_EQ(d.donated_bytes, 4096);
  EXPECT_EQ(d.donated_count, 1);
  EXPECT_TRUE(d.parameters[0].donated);
  EXPECT_TRUE(d.parameters[0].flag_live_out);
  EXPECT_TRUE(d.parameters[0].in_input_output_alias);
  // Output 0 is taken by p0, so p1 can only reuse output 1.
  EXPECT_TRUE(d.parameters[1].donatable);
  EXPECT_EQ(d.parameters[1].matching_output_index, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(d.donatable_bytes, 4096);
  EXPECT_TRUE(d.inconsistencies.empty());
}

TEST(PlanDonation, NewerAliasedFlagCountsAsDonated) {
  PlanBuilder p = three_params();
  auto* a = p.proto().mutable_buffer_assignment()->mutable_buffer_allocations(1);
  a->set_maybe_live_out(true);
  a->set_is_parameter_aliased_with_output(true);
  const DonationSummary d = analyze_plan(p.proto()).donation;
  EXPECT_TRUE(d.parameters[1].donated);
  EXPECT_TRUE(d.parameters[1].flag_aliased);
  // Without input_output_alias the donated p1 still uses up one f32[1024] output: one candidate left.
  EXPECT_EQ(d.donatable_count, 1);
  EXPECT_TRUE(d.inconsistencies.empty());  // no alias list at all is not a contradiction
}

TEST(PlanDonation, DisagreementsAreReported) {
  PlanBuilder p = three_params();
  auto* assignment = p.proto().mutable_buffer_assignment();
  assignment->mutable_buffer_allocations(0)->set_maybe_live_out(true);  // donated by flag, not in the list
  alias(p, 1, 1);  // in the list, allocation not live-out
  assignment->mutable_buffer_allocations(2)->set_is_parameter_aliased_with_output(
      true);  // flag without live-out
  auto* donor = p.proto().mutable_hlo_module()->mutable_buffer_donor()->add_entries();
  donor->set_parameter_number(1);
  const DonationSummary d = analyze_plan(p.proto()).donation;
  EXPECT_TRUE(d.parameters[0].donated);
  EXPECT_FALSE(d.parameters[1].donated);  // the allocation is the authority
  EXPECT_TRUE(d.parameters[1].in_input_output_alias);
  EXPECT_TRUE(d.parameters[1].in_buffer_donor);
  EXPECT_TRUE(d.parameters[2].donated);
  ASSERT_EQ(d.inconsistencies.size(), 5u);
  EXPECT_NE(d.inconsistencies[0].find("parameter 0 shares its allocation"), std::string::npos);
  EXPECT_NE(d.inconsistencies[1].find("parameter 1 is in input_output_alias"), std::string::npos);
  EXPECT_NE(d.inconsistencies[2].find("parameter 1 is declared a buffer donor"), std::string::npos);
  EXPECT_NE(d.inconsistencies[3].find("parameter 2 shares its allocation"), std::string::npos);
  EXPECT_NE(d.inconsistencies[4].find("parameter 2 is flagged aliased"), std::string::npos);
}

TEST(PlanDonation, WithoutBufferAssignmentTheAliasListDecides) {
  PlanBuilder p = three_params();
  alias(p, 1, 0);
  p.proto().clear_buffer_assignment();
  const DonationSummary d = analyze_plan(p.proto()).donation;
  ASSERT_EQ(d.parameters.size(), 3u);
  EXPECT_EQ(d.parameter_bytes, 4096 * 2 + 16);  // from the shapes
  EXPECT_TRUE(d.parameters[1].donated);
  EXPECT_EQ(d.donated_bytes, 4096);
  EXPECT_TRUE(d.parameters[0].donatable);
  EXPECT_EQ(d.parameters[0].matching_output_index, (std::vector<std::int64_t>{1}));
}

TEST(PlanDonation, OtherMemorySpacesAreLeftOut) {
  PlanBuilder p = three_params();
  p.proto().mutable_buffer_assignment()->mutable_buffer_allocations(2)->set_color(5);
  EXPECT_EQ(analyze_plan(p.proto()).donation.parameters.size(), 2u);
}

}  // namespace
}  // namespace oomscope::analysis
