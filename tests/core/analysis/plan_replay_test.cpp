// Heap-simulator replay: ALLOC/FREE, SHARE_WITH reference counts, revival, canonical chains, trace
// selection, several traces, indefinite allocations, modules without assignment or trace.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/analysis/plan/plan.h"
#include "tests/core/analysis/plan_test_builder.h"

namespace oomscope::analysis {
namespace {

using testing::array_shape;
using testing::kF32;
using testing::PlanBuilder;
using testing::temps;

std::vector<std::int64_t> live_ids(const PlanAnalysis& a, bool heap_only = true) {
  std::vector<std::int64_t> ids;
  for (const auto& b : a.live_at_peak)
    if (!heap_only || !b.indefinite) ids.push_back(b.logical_buffer_id);
  return ids;
}

TEST(PlanReplay, AllocFreeFindsFirstPeakAndLiveBuffers) {
  PlanBuilder p = temps({100, 200, 50, 300});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1, "a");
  PlanBuilder::alloc(t, 2, "b");  // 300
  PlanBuilder::free(t, 1, "c");   // 200
  PlanBuilder::alloc(t, 3, "d");  // 250
  PlanBuilder::alloc(t, 4, "e");  // 550  <- peak
  PlanBuilder::free(t, 2, "f");   // 350
  PlanBuilder::free(t, 3, "g");
  PlanBuilder::alloc(t, 1, "h");  // 400, not above the peak
  const PlanAnalysis a = analyze_plan(p.proto());
  ASSERT_EQ(a.status, PlanStatus::Ok);
  EXPECT_EQ(a.selection, TraceSelection::OwnedByTemp);
  EXPECT_EQ(a.heap_peak_bytes, 550);
  EXPECT_EQ(a.peak_event_index, 4);
  EXPECT_EQ(a.peak_instruction, "e");
  EXPECT_EQ(a.peak_computation, "main");
  EXPECT_EQ(live_ids(a), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(a.live_at_peak[2].live_since_event, 4);
  EXPECT_EQ(a.curve.heap_bytes, (std::vector<std::int64_t>{100, 300, 200, 250, 550, 350, 300, 400}));
  EXPECT_EQ(a.curve.instruction_at(4), "e");
  EXPECT_EQ(a.trace_event_count, 8);
  EXPECT_TRUE(a.notes.empty());
}

TEST(PlanReplay, EqualHeightLaterDoesNotMoveThePeak) {
  PlanBuilder p = temps({100, 100});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1, "first");
  PlanBuilder::free(t, 1);
  PlanBuilder::alloc(t, 2, "second");
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.peak_event_index, 0);
  EXPECT_EQ(a.peak_instruction, "first");
  EXPECT_EQ(live_ids(a), (std::vector<std::int64_t>{1}));
}

TEST(PlanReplay, ShareWithKeepsMemoryUntilTheLastReferenceIsFreed) {
  PlanBuilder p = temps({1000, 1000, 10});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1);
  PlanBuilder::share(t, 2, 1);  // same memory: heap unchanged
  PlanBuilder::free(t, 1);      // 2 still references it
  PlanBuilder::alloc(t, 3);     // 1010 <- peak, buffer 1's memory still live
  PlanBuilder::free(t, 2);      // last reference: 10
  PlanBuilder::free(t, 3);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.curve.heap_bytes, (std::vector<std::int64_t>{1000, 1000, 1000, 1010, 10, 0}));
  EXPECT_EQ(a.heap_peak_bytes, 1010);
  // The canonical (root) holds the memory; the sharer is not listed separately.
  EXPECT_EQ(live_ids(a), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(a.live_at_peak[0].size_bytes, 1000);
}

TEST(PlanReplay, ShareWithAfterFreeRevivesTheCanonicalAndCanMoveThePeak) {
  PlanBuilder p = temps({500, 64, 300});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1, "a");
  PlanBuilder::alloc(t, 3, "b");          // 800
  PlanBuilder::free(t, 1, "c");           // 300
  PlanBuilder::share(t, 2, 1, "revive");  // canonical 1 already freed: its 500 bytes come back -> 800
  PlanBuilder::free(t, 3, "d");           // 500
  PlanBuilder::alloc(t, 3, "e");          // 800 again, not higher
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.curve.heap_bytes, (std::vector<std::int64_t>{500, 800, 300, 800, 500, 800}));
  EXPECT_EQ(a.peak_event_index, 1);

  // Make the revival the highest point.
  PlanBuilder q = temps({500, 64, 300, 100});
  auto& u = q.trace();
  PlanBuilder::alloc(u, 1, "a");
  PlanBuilder::alloc(u, 3, "b");          // 800
  PlanBuilder::free(u, 1, "c");           // 300
  PlanBuilder::alloc(u, 4, "d");          // 400
  PlanBuilder::share(u, 2, 1, "revive");  // 900 <- peak, from a SHARE_WITH
  const PlanAnalysis b = analyze_plan(q.proto());
  EXPECT_EQ(b.heap_peak_bytes, 900);
  EXPECT_EQ(b.peak_event_index, 4);
  EXPECT_EQ(b.peak_instruction, "revive");
  ASSERT_EQ(live_ids(b), (std::vector<std::int64_t>{3, 4, 2}));
  // The revived memory is shown as the sharer (XProf's display buffer) with the canonical's size.
  const PlanBuffer& revived = b.live_at_peak.back();
  EXPECT_EQ(revived.logical_buffer_id, 2);
  EXPECT_EQ(revived.canonical_buffer_id, 1);
  EXPECT_EQ(revived.size_bytes, 500);
  EXPECT_EQ(revived.instruction, "op.2");
  EXPECT_EQ(revived.live_since_event, 4);
  EXPECT_EQ(revived.role, BufferRole::Other);
}

TEST(PlanReplay, ARevivingSharerWithoutNameStackTakesTheCanonicalsRole) {
  PlanBuilder p;
  p.instruction(1, "fusion.1", "fusion", array_shape(kF32, {125}),
                "jit(step)/transpose(jvp(mlp))/dot_general");
  p.instruction(2, "copy.2", "copy", array_shape(kF32, {125}));  // XLA-generated
  p.instruction(3, "fusion.3", "fusion", array_shape(kF32, {125}), "jit(step)/jvp(mlp)/tanh");
  p.buffer(1, 500, 1);
  p.buffer(2, 500, 2);
  p.buffer(3, 500, 3);
  p.allocation(0, 1500, {1, 2, 3});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1);
  PlanBuilder::free(t, 1);
  PlanBuilder::alloc(t, 3);
  PlanBuilder::share(t, 2, 1);  // revival: shown as copy.2
  const PlanAnalysis a = analyze_plan(p.proto());
  ASSERT_EQ(a.live_at_peak.size(), 2u);
  const PlanBuffer& shown = a.live_at_peak[1];
  EXPECT_EQ(shown.instruction, "copy.2");
  EXPECT_EQ(shown.role, BufferRole::Backward);
  EXPECT_EQ(shown.role_via_instruction, "fusion.1");
  ASSERT_EQ(a.role_totals.size(), 2u);
  EXPECT_DOUBLE_EQ(a.role_totals[0].percent_of_heap_peak, 50.0);
  EXPECT_DOUBLE_EQ(a.role_totals[0].percent_of_peak, 50.0);
}

TEST(PlanReplay, ChainsOfCanonicalBuffersCountOnTheRoot) {
  PlanBuilder p = temps({700, 8, 8, 1});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1);
  PlanBuilder::share(t, 2, 1);
  PlanBuilder::share(t, 3, 2);  // 3 -> 2 -> 1: the root is 1
  PlanBuilder::free(t, 1);
  PlanBuilder::free(t, 2);
  PlanBuilder::alloc(t, 4);  // 701 <- 3 still holds the root
  PlanBuilder::free(t, 3);   // root count reaches 0: the ROOT's 700 bytes leave
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.curve.heap_bytes, (std::vector<std::int64_t>{700, 700, 700, 700, 700, 701, 1}));
  EXPECT_EQ(live_ids(a), (std::vector<std::int64_t>{1, 4}));

  // Reviving through the end of a chain adds the root's size, not the sharer's or the middle's.
  PlanBuilder q = temps({700, 8, 8, 1});
  auto& u = q.trace();
  PlanBuilder::alloc(u, 1);
  PlanBuilder::share(u, 2, 1);
  PlanBuilder::free(u, 1);
  PlanBuilder::free(u, 2);      // 0
  PlanBuilder::share(u, 3, 2);  // 3 -> 2 -> 1, count back to 1: +700
  const PlanAnalysis b = analyze_plan(q.proto());
  EXPECT_EQ(b.curve.heap_bytes, (std::vector<std::int64_t>{700, 700, 700, 0, 700}));
  EXPECT_EQ(b.live_at_peak.size(), 1u);
  EXPECT_EQ(b.peak_event_index, 0);
}

TEST(PlanReplay, OddEventsAreNotedNotFatal) {
  PlanBuilder p = temps({10, 20});
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1);
  PlanBuilder::alloc(t, 99);  // unknown buffer
  PlanBuilder::free(t, 2);    // never allocated
  PlanBuilder::alloc(t, 2);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.heap_peak_bytes, 30);
  EXPECT_EQ(a.curve.heap_bytes, (std::vector<std::int64_t>{10, 10, 10, 30}));
  ASSERT_EQ(a.notes.size(), 2u);
  EXPECT_NE(a.notes[0].find("does not have"), std::string::npos);
  EXPECT_NE(a.notes[1].find("not live"), std::string::npos);
}

TEST(PlanReplay, IndefiniteAllocationsAddTheirAllocationSize) {
  PlanBuilder p = temps({100});
  p.instruction(1, "param.0", "parameter", array_shape(kF32, {64}));
  p.instruction(2, "param.1", "parameter", array_shape(kF32, {64}));
  p.instruction(3, "constant.1", "constant", array_shape(kF32, {2}));
  p.instruction(4, "out", "fusion", array_shape(kF32, {64}));
  p.buffer(10, 256, 1);
  p.buffer(11, 200, 2);
  p.buffer(12, 256, 2);  // a bigger buffer in the same allocation is the representative
  p.buffer(13, 8, 3);
  p.buffer(14, 256, 4);
  auto& param0 = p.allocation(1, 300, {10});  // allocation padded beyond its buffer
  param0.set_is_entry_computation_parameter(true);
  param0.set_parameter_number(0);
  auto& param1 = p.allocation(2, 256, {11, 12});
  param1.set_is_entry_computation_parameter(true);
  param1.set_parameter_number(1);
  p.allocation(3, 8, {13}).set_is_constant(true);
  p.allocation(4, 256, {14}).set_maybe_live_out(true);
  auto& t = p.trace();
  PlanBuilder::alloc(t, 1, "op.1");
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.indefinite_bytes, 300 + 256 + 8 + 256);
  EXPECT_EQ(a.heap_peak_bytes, 100);
  EXPECT_EQ(a.peak_bytes, 100 + 820);
  EXPECT_EQ(a.parameters_bytes, 556);
  EXPECT_EQ(a.outputs_bytes, 256);
  EXPECT_EQ(a.constants_bytes, 8);
  EXPECT_EQ(a.temp_bytes, 1 << 20);
  ASSERT_EQ(a.live_at_peak.size(), 5u);
  EXPECT_EQ(a.live_at_peak[0].logical_buffer_id, 10);
  EXPECT_EQ(a.live_at_peak[0].size_bytes, 300);
  EXPECT_EQ(a.live_at_peak[0].role, BufferRole::Parameter);
  EXPECT_EQ(a.live_at_peak[1].logical_buffer_id, 12);
  EXPECT_EQ(a.live_at_peak[1].parameter_number, 1);
  EXPECT_EQ(a.live_at_peak[2].role, BufferRole::Constant);
  EXPECT_EQ(a.live_at_peak[3].role, BufferRole::Output);
  EXPECT_EQ(a.live_at_peak[4].logical_buffer_id, 1);
  std::int64_t sum = 0;
  for (const auto& r : a.role_totals) sum += r.bytes;
  EXPECT_EQ(sum, a.peak_bytes);
  EXPECT_EQ(a.role_bytes(BufferRole::Parameter), 556);
  for (const auto& r : a.role_totals) {
    if (r.role == BufferRole::Other) {
      EXPECT_DOUBLE_EQ(r.percent_of_heap_peak, 100.0);
      EXPECT_DOUBLE_EQ(r.percent_of_peak, 100.0 * 100 / 920);
    } else {
      EXPECT_EQ(r.percent_of_heap_peak, 0.0);
    }
  }
  EXPECT_EQ(a.curve.total_at(0), 920);
  // XLA's variant adds the representatives' own sizes: 256 + 256 + 8 + 256 + the heap peak.
  EXPECT_EQ(a.xla_compute_peak_bytes, 256 + 256 + 8 + 256 + 100);
}

TEST(PlanReplay, TraceOfTheTempAllocationIsPreferredOverTheBusiestTrace) {
  PlanBuilder p = temps({100, 200});
  p.instruction(50, "out", "fusion", array_shape(kF32, {4}));
  p.buffer(20, 16, 50);
  p.buffer(21, 16, 50);
  p.allocation(5, 32, {20, 21}).set_maybe_live_out(true);
  auto& busy = p.trace();  // owned by an indefinite allocation: not eligible first
  for (int i = 0; i < 3; ++i) {
    PlanBuilder::alloc(busy, 20);
    PlanBuilder::free(busy, 20);
  }
  auto& temp = p.trace();
  PlanBuilder::alloc(temp, 1);
  PlanBuilder::alloc(temp, 2);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.selection, TraceSelection::OwnedByTemp);
  EXPECT_EQ(a.selected_trace, 1);
  EXPECT_EQ(a.heap_peak_bytes, 300);
  ASSERT_EQ(a.traces.size(), 2u);
  EXPECT_EQ(a.traces[0].owner_allocation, 5);
  EXPECT_EQ(a.traces[0].heap_peak_bytes, 16);
  EXPECT_EQ(a.traces[1].owner_allocation, 0);
  EXPECT_EQ(a.traces[1].heap_peak_bytes, 300);
}

TEST(PlanReplay, FallbackTakesTheTraceWithMostEventsOfTheColor) {
  PlanBuilder p;
  p.instruction(1, "a", "fusion", array_shape(kF32, {4}));
  p.buffer(1, 16, 1);
  p.buffer(2, 32, 1);
  p.buffer(3, 64, 1, {}, /*color=*/5);
  p.allocation(0, 16, {1}).set_maybe_live_out(true);
  p.allocation(1, 32, {2}).set_is_thread_local(true);
  p.allocation(2, 64, {3}, 5);
  auto& other_color = p.trace();
  for (int i = 0; i < 4; ++i) PlanBuilder::alloc(other_color, 3);
  auto& t1 = p.trace();
  PlanBuilder::alloc(t1, 1);
  auto& t2 = p.trace();
  PlanBuilder::alloc(t2, 2);
  PlanBuilder::free(t2, 2);
  const PlanAnalysis a = analyze_plan(p.proto());
  EXPECT_EQ(a.selection, TraceSelection::MostColorEvents);
  EXPECT_EQ(a.selected_trace, 2);
  EXPECT_EQ(a.heap_peak_bytes, 32);
  EXPECT_EQ(a.traces[0].color_events, 0);
  EXPECT_EQ(a.traces[2].color_events, 2);
}

TEST(PlanReplay, AllTracesWalksEveryTraceOfTheColorInSequence) {
  PlanBuilder p = temps({100, 200, 400});
  p.buffer(9, 1000, 101, {}, /*color=*/1);
  p.allocation(7, 1000, {9}, 1);
  auto& t1 = p.trace();
  PlanBuilder::alloc(t1, 1, "x");
  PlanBuilder::alloc(t1, 2, "y");
  auto& t2 = p.trace();
  PlanBuilder::alloc(t2, 9, "other color");
  PlanBuilder::alloc(t2, 3, "z");
  PlanOptions options;
  options.trace = TraceChoice::AllTraces;
  const PlanAnalysis a = analyze_plan(p.proto(), options);
  EXPECT_EQ(a.selection, TraceSelection::AllTraces);
  EXPECT_EQ(a.selected_trace, -1);
  EXPECT_EQ(a.trace_event_count, 3);
  EXPECT_EQ(a.heap_peak_bytes, 700);
  EXPECT_EQ(a.peak_instruction, "z");
  EXPECT_EQ(live_ids(a), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(a.traces[0].heap_peak_bytes, 300);
  EXPECT_EQ(a.traces[1].heap_peak_bytes, 1400);  // alone and unfiltered
  // The default picks one trace only.
  const PlanAnalysis d = analyze_plan(p.proto());
  EXPECT_EQ(d.selected_trace, 0);
  EXPECT_EQ(d.heap_peak_bytes, 300);
  EXPECT_EQ(d.xla_compute_peak_bytes, 700);

  options.trace = TraceChoice::Index;
  options.trace_index = 1;
  const PlanAnalysis r = analyze_plan(p.proto(), options);
  EXPECT_EQ(r.selection, TraceSelection::Requested);
  EXPECT_EQ(r.heap_peak_bytes, 1400);  // one trace is replayed whole, like XProf does
  EXPECT_FALSE(r.notes.empty());       // and it touches two allocations
  options.trace_index = 7;
  const PlanAnalysis bad = analyze_plan(p.proto(), options);
  EXPECT_EQ(bad.status, PlanStatus::NoHeapTrace);
  EXPECT_NE(bad.notes.front().find("trace 7 does not exist"), std::string::npos);
}

TEST(PlanReplay, ModulesWithoutAssignmentOrTraceGiveTotalsOnly) {
  PlanBuilder p = temps({100});
  p.buffer(5, 64, 101);
  p.allocation(3, 64, {5}).set_maybe_live_out(true);
  const PlanAnalysis no_trace = analyze_plan(p.proto());
  EXPECT_EQ(no_trace.status, PlanStatus::NoHeapTrace);
  EXPECT_EQ(no_trace.selection, TraceSelection::None);
  EXPECT_EQ(no_trace.temp_bytes, 1 << 20);
  EXPECT_EQ(no_trace.peak_bytes, 64);
  EXPECT_EQ(no_trace.live_at_peak.size(), 1u);
  EXPECT_TRUE(no_trace.curve.heap_bytes.empty());
  ASSERT_FALSE(no_trace.notes.empty());

  // No temp allocation at all: nothing to simulate, the indefinite allocations are the whole peak.
  PlanBuilder small;
  small.instruction(1, "p", "parameter", array_shape(kF32, {4}));
  small.buffer(1, 16, 1);
  small.allocation(0, 16, {1}).set_is_entry_computation_parameter(true);
  small.allocation(1, 0, {}).set_is_constant(true);  // empty: left out of the live list
  const PlanAnalysis params_only = analyze_plan(small.proto());
  EXPECT_EQ(params_only.status, PlanStatus::Ok);
  EXPECT_EQ(params_only.peak_bytes, 16);
  EXPECT_EQ(params_only.peak_event_index, -1);
  EXPECT_EQ(params_only.live_at_peak.size(), 1u);
  EXPECT_TRUE(params_only.notes.empty());

  p.proto().clear_buffer_assignment();
  const PlanAnalysis none = analyze_plan(p.proto());
  EXPECT_EQ(none.status, PlanStatus::NoBufferAssignment);
  EXPECT_EQ(none.module_name, "jit_step");
  EXPECT_EQ(none.program_id, 42u);
  EXPECT_EQ(none.peak_bytes, 0);
  EXPECT_TRUE(none.live_at_peak.empty());
  EXPECT_FALSE(none.notes.empty());

  const PlanAnalysis empty = analyze_plan(xla::HloProto{});
  EXPECT_EQ(empty.status, PlanStatus::NoBufferAssignment);
}

}  // namespace
}  // namespace oomscope::analysis
