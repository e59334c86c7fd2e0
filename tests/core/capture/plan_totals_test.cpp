// compute_plan_totals on hand-made buffer assignments: the categories, colours and donation rules.

#include <gtest/gtest.h>

#include "core/capture/reader.h"
#include "hlo.pb.h"

namespace {

using oomscope::capture::compute_plan_totals;

xla::BufferAllocationProto* add(xla::HloProto& hlo, std::int64_t size) {
  auto* a = hlo.mutable_buffer_assignment()->add_buffer_allocations();
  a->set_index(hlo.buffer_assignment().buffer_allocations_size() - 1);
  a->set_size(size);
  return a;
}

TEST(PlanTotals, CategoriesFollowXprofPriority) {
  xla::HloProto hlo;
  auto* p0 = add(hlo, 1000);  // plain parameter
  p0->set_is_entry_computation_parameter(true);
  auto* p1 = add(hlo, 2000);  // donated: parameter that is also live out
  p1->set_is_entry_computation_parameter(true);
  p1->set_parameter_number(1);
  p1->set_maybe_live_out(true);
  add(hlo, 300)->set_maybe_live_out(true);  // output
  add(hlo, 40)->set_is_thread_local(true);  // thread-local
  add(hlo, 5)->set_is_constant(true);       // constant
  add(hlo, 60000);                          // temp
  auto* other_colour = add(hlo, 1 << 20);   // another memory space: not counted
  other_colour->set_color(1);
  hlo.mutable_buffer_assignment()->add_heap_simulator_traces();

  const auto t = compute_plan_totals(hlo);
  EXPECT_EQ(t.parameters_bytes, 3000);
  EXPECT_EQ(t.donated_bytes, 2000);
  EXPECT_EQ(t.outputs_bytes, 300);
  EXPECT_EQ(t.thread_local_bytes, 40);
  EXPECT_EQ(t.constants_bytes, 5);
  EXPECT_EQ(t.temp_bytes, 60000);
  EXPECT_EQ(t.total_allocation_bytes, 3000 + 300 + 40 + 5 + 60000);
  EXPECT_EQ(t.allocation_count, 6);
  EXPECT_EQ(t.parameter_count, 2);
  EXPECT_EQ(t.donated_count, 1);
  EXPECT_EQ(t.heap_trace_count, 1);
  // p1 is live out but the module declares no alias: the two sources disagree once.
  EXPECT_EQ(t.donation_disagreements, 1);
}

TEST(PlanTotals, DonationFromInputOutputAliasOrNewerFlag) {
  xla::HloProto hlo;
  auto* by_alias = add(hlo, 700);
  by_alias->set_is_entry_computation_parameter(true);
  by_alias->set_parameter_number(0);
  by_alias->add_parameter_shape_index(1);
  auto* entry = hlo.mutable_hlo_module()->mutable_input_output_alias()->add_entries();
  entry->set_parameter_number(0);
  entry->add_parameter_shape_index(1);
  auto* by_flag = add(hlo, 11);
  by_flag->set_is_entry_computation_parameter(true);
  by_flag->set_parameter_number(1);
  by_flag->set_is_parameter_aliased_with_output(true);
  auto* wrong_index = add(hlo, 13);  // same parameter, other tuple index: not aliased
  wrong_index->set_is_entry_computation_parameter(true);
  wrong_index->add_parameter_shape_index(0);

  const auto t = compute_plan_totals(hlo);
  EXPECT_EQ(t.parameters_bytes, 724);
  EXPECT_EQ(t.donated_bytes, 711);
  EXPECT_EQ(t.donated_count, 2);
  EXPECT_EQ(t.donation_disagreements, 2);
}

}  // namespace
