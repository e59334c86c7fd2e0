// The runtime peak explained (runtime_peak.h), donation liveness (donation_liveness.h) and the eager
// verdict (program_kind.h) on hand-made events, each case written so that the figures can be added up by
// hand.
#include "core/analysis/runtime/runtime_peak.h"

#include <gtest/gtest.h>

#include "core/analysis/report/donation_liveness.h"
#include "core/analysis/report/program_kind.h"
#include "core/analysis/report/report.h"
#include "runtime_test_events.h"

namespace oomscope::analysis {
namespace {

using testing::MemoryScript;

RuntimeExecution execution(const std::string& module, std::int64_t start, std::int64_t end, int number,
                           std::uint32_t line = 0) {
  RuntimeExecution e;
  e.module = e.label = module;
  e.start_ps = start;
  e.end_ps = end;
  e.number = number;
  e.line = line;
  e.allocator = 0;
  return e;
}

HostTimeline empty_timeline() {
  HostTimeline t;
  t.lines.resize(2);
  t.name = [](std::int64_t) { return std::string_view(); };
  return t;
}

TEST(RuntimePeak, ReconcilesThePeakWithTheExecutionThatHoldsIt) {
  MemoryScript mem(100000, {500, 0});  // 500 bytes held before the capture
  mem.alloc(10, 1, 100)                // outputs of jit_a execution 1 (kept)
      .alloc(12, 2, 30)                // jit_a's temp, freed inside it
      .free(15, 2, 30)
      .alloc(50, 3, 40, 1)   // another thread, before jit_b starts
      .alloc(105, 4, 200)    // jit_b's output
      .alloc(106, 5, 64)     // jit_b's temp: the peak (500 + 100 + 40 + 200 + 64 - 40 = 864)
      .alloc(107, 6, 8, 1)   // another thread while jit_b runs
      .free(107, 3, 40, 1);  // frees an older chunk while jit_b runs
  std::vector<capture::MemoryEvent> events = mem.events();
  events[4].requested_bytes = 150;  // the 200-byte chunk served a 150-byte request
  const std::vector<RuntimeExecution> runs{execution("jit_a", 9, 20, 1), execution("jit_b", 100, 120, 1)};
  const HostTimeline host = empty_timeline();
  RuntimePeakInput in;
  in.memory = events;
  in.executions = runs;
  in.host = &host;
  in.peak_bytes = events[6].bytes_in_use;  // after the other thread's 8 bytes: 500+100+40+200+64+8
  in.peak_time_ps = 107;
  in.top = 2;
  ASSERT_EQ(in.peak_bytes, 912);
  const auto p = explain_runtime_peak(in);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->execution);
  EXPECT_EQ(p->execution->module, "jit_b");
  EXPECT_EQ(p->in_use_at_start, 640);  // 500 + 100 + 40
  EXPECT_EQ(p->own_chunk_bytes, 264);
  EXPECT_EQ(p->own_requested_bytes, 214);
  EXPECT_EQ(p->own_allocations, 2);
  EXPECT_EQ(p->other_chunk_bytes, 8);
  EXPECT_EQ(p->freed_bytes, 0);  // the free of chunk 3 comes after the peak event at the same time
  EXPECT_EQ(p->unexplained_bytes, 0);
  // Live at the peak by producer: jit_b (running), jit_a's outputs, the other thread, before the capture.
  std::int64_t sum = 0;
  for (const LiveGroup& g : p->live_by_producer) sum += g.bytes;
  EXPECT_EQ(sum, 912);
  ASSERT_FALSE(p->live_by_producer.empty());
  EXPECT_EQ(p->live_by_producer.front().label, "allocated before the capture started");
  EXPECT_EQ(p->live_by_producer.front().bytes, 500);
  ASSERT_EQ(p->modules.size(), 2u);
  EXPECT_EQ(p->modules[0].module, "jit_b");
  EXPECT_EQ(p->modules[0].bytes, 264);
  EXPECT_EQ(p->modules[1].module, "jit_a");
  EXPECT_EQ(p->modules[1].bytes, 100);
  ASSERT_EQ(p->largest_chunks.size(), 2u);
  EXPECT_EQ(p->largest_chunks[0].chunk_bytes, 200);
  EXPECT_EQ(p->largest_chunks[0].requested_bytes, 150);
  EXPECT_EQ(p->largest_chunks[0].producer, "allocated by jit_b execution 1, running at the peak");
  EXPECT_EQ(p->allocations_seen, 6);
  EXPECT_EQ(p->rounded_up_1mib, 0);  // 50 bytes of slack is under 1 MiB
}

TEST(RuntimePeak, CountsAllocationsRoundedUpByAMebibyteOrMore) {
  const std::int64_t MiB = 1 << 20;
  MemoryScript mem(1 << 30);
  mem.alloc(10, 1, 240 * MiB).alloc(20, 2, 4 * MiB).alloc(30, 3, 2 * MiB);
  std::vector<capture::MemoryEvent> events = mem.events();
  events[0].requested_bytes = 128 * MiB;    // 112 MiB more
  events[1].requested_bytes = 4 * MiB - 1;  // one byte: not counted
  events[2].requested_bytes = 1 * MiB;      // exactly 1 MiB more: counted
  const HostTimeline host = empty_timeline();
  RuntimePeakInput in;
  in.memory = events;
  in.host = &host;
  in.peak_bytes = events.back().bytes_in_use;
  in.peak_time_ps = 30;
  const auto p = explain_runtime_peak(in);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->execution);  // no execution holds the peak
  EXPECT_EQ(p->rounded_up_1mib, 2);
  EXPECT_EQ(p->rounded_up_1mib_bytes, 113 * MiB);
}

TEST(DonationLiveness, ArgumentsFreedRightAfterEachCallAreDead) {
  MemoryScript mem;
  mem.alloc(5, 1, 64);  // w0
  const std::vector<RuntimeExecution> runs{execution("jit_update", 10, 20, 1),
                                           execution("jit_update", 40, 50, 2)};
  mem.alloc(12, 2, 64)
      .free(22, 1, 64)  // call 1 makes w1; the caller drops w0 after it returns
      .alloc(42, 3, 64)
      .free(52, 2, 64);  // call 2 makes w2; w1 dropped
  const std::vector<std::int64_t> sizes{64};
  const DonationLiveness d = check_donation_liveness(mem.events(), 0, runs, runs, sizes, sizes);
  EXPECT_EQ(d.fate, ArgumentFate::DeadAfterCall);
  EXPECT_EQ(d.calls, 2);
  EXPECT_EQ(d.dead_calls, 2);
}

TEST(DonationLiveness, InputsLiveAtEveryCallAreReusedNotDead) {
  MemoryScript mem;
  mem.alloc(5, 1, 64).alloc(6, 2, 64);  // a and b, passed to every call of c = a + b
  const std::vector<RuntimeExecution> runs{execution("jit_add", 10, 20, 1), execution("jit_add", 40, 50, 2),
                                           execution("jit_add", 70, 80, 3)};
  mem.alloc(12, 3, 64).free(30, 3, 64).alloc(42, 4, 64).free(60, 4, 64).alloc(72, 5, 64);
  const std::vector<std::int64_t> sizes{64}, both{64, 64};
  const DonationLiveness d = check_donation_liveness(mem.events(), 0, runs, runs, sizes, both);
  EXPECT_EQ(d.fate, ArgumentFate::LiveAtLaterCalls);
  EXPECT_EQ(d.dead_calls, 0);
  EXPECT_EQ(d.reused_calls, 2);  // the last call has no next call to be live at
  EXPECT_EQ(d.reused_by, (std::vector<std::int64_t>{2, 3}));
}

TEST(DonationLiveness, InputsHeldSinceBeforeTheCaptureArePassedAgain) {
  // The elementwise capture's shape: a and b (64 bytes each) were allocated before the capture, so no event
  // names them; in use at every call's start is exactly them (plus 8 bytes of another size).
  MemoryScript mem(100000, {128, 0});
  mem.alloc(5, 9, 8);
  const std::vector<RuntimeExecution> runs{execution("jit_add", 10, 20, 1), execution("jit_add", 40, 50, 2),
                                           execution("jit_add", 70, 80, 3)};
  mem.alloc(12, 3, 64).free(30, 3, 64).alloc(42, 4, 64).free(60, 4, 64).alloc(72, 5, 64);
  const std::vector<std::int64_t> sizes{64}, both{64, 64};
  const DonationLiveness d = check_donation_liveness(mem.events(), 0, runs, runs, sizes, both);
  EXPECT_EQ(d.fate, ArgumentFate::LiveAtLaterCalls);
  EXPECT_EQ(d.total_calls, 3);
  EXPECT_EQ(d.reused_by, (std::vector<std::int64_t>{2, 3}));  // the last call's later use is not seen
}

TEST(DonationLiveness, ASpareArrayOfTheSizeLeavesTheArgumentsUnknown) {
  // Three arrays of a parameter's size live at every call of a two-parameter module: which two were passed
  // to each call, the capture cannot tell.
  MemoryScript mem;
  mem.alloc(5, 1, 64).alloc(6, 2, 64).alloc(7, 6, 64);
  const std::vector<RuntimeExecution> runs{execution("jit_add", 10, 20, 1), execution("jit_add", 40, 50, 2)};
  mem.alloc(12, 3, 64).free(30, 3, 64).alloc(42, 4, 64);
  const std::vector<std::int64_t> sizes{64}, both{64, 64};
  const DonationLiveness d = check_donation_liveness(mem.events(), 0, runs, runs, sizes, both);
  EXPECT_EQ(d.fate, ArgumentFate::Unknown);
  EXPECT_TRUE(d.reused_by.empty());
}

TEST(DonationLiveness, AFreeAfterAnotherExecutionStartedCannotBeJudged) {
  MemoryScript mem;
  mem.alloc(5, 1, 64);
  const std::vector<RuntimeExecution> mine{execution("jit_f", 10, 20, 1)};
  const std::vector<RuntimeExecution> all{mine[0], execution("jit_g", 25, 30, 1)};
  mem.free(28, 1, 64);  // freed while jit_g ran: jit_g may have read it
  const std::vector<std::int64_t> sizes{64};
  EXPECT_EQ(check_donation_liveness(mem.events(), 0, mine, all, sizes, sizes).fate, ArgumentFate::Unknown);
}

ModuleRow row(const std::string& name, std::uint64_t id, std::int64_t executions, bool backward = false) {
  ModuleRow r;
  r.name = name;
  r.program_id = id;
  r.executions = executions;
  r.has_backward = backward;
  return r;
}

TEST(ProgramKind, DecidedForTheProgramNotTheAnalysedModule) {
  // Six single-op modules, five ran once: eager, whichever module is analysed and whatever its temp share.
  std::vector<ModuleRow> mods{row("jit_matmul", 1, 1), row("jit_add", 2, 1), row("jit_tanh", 3, 1),
                              row("jit_exp", 4, 1),    row("jit_sin", 5, 1), row("jit_never", 6, 0)};
  ProgramKind k = decide_program_kind(mods);
  EXPECT_TRUE(k.eager);
  EXPECT_EQ(k.modules_executed, 5);
  EXPECT_EQ(k.executions, 5);
  EXPECT_EQ(k.most_executions, 1);
  // A training step among them: not eager.
  mods[0].has_backward = true;
  EXPECT_FALSE(decide_program_kind(mods).eager);
  mods[0].has_backward = false;
  // One module runs most of the executions: a loop over one jitted step.
  mods[0].executions = 100;
  k = decide_program_kind(mods);
  EXPECT_FALSE(k.eager);
  EXPECT_EQ(k.most_executed, "jit_matmul(1)");
  // Fewer than 5 modules: too few to call it eager.
  EXPECT_FALSE(decide_program_kind(std::span(mods).first(4)).eager);
}

}  // namespace
}  // namespace oomscope::analysis
