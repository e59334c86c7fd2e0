#include "core/analysis/runtime/runtime_executions.h"

#include <gtest/gtest.h>

#include "runtime_test_events.h"

namespace oomscope::analysis {
namespace {

using capture::DeviceProgramEvent;
using capture::ExecutionKind;
using capture::ExecutionSpan;
using testing::add_execution;
using testing::MemoryScript;
using testing::span;

// strings()[1] = "jit_step", [2] = "jit_eval"
const std::vector<std::string> kStrings{"", "jit_step", "jit_eval"};

ExecutionInput input(const std::vector<ExecutionSpan>& spans, const std::vector<DeviceProgramEvent>& dev,
                     const std::vector<ModuleRef>& modules,
                     const std::vector<capture::MemoryEvent>& memory = {}) {
  ExecutionInput in;
  in.spans = spans;
  in.device_events = dev;
  in.strings = kStrings;
  in.modules = modules;
  in.memory = memory;
  return in;
}

TEST(RuntimeExecutions, NamesExecutionsAndFindsTheirKernels) {
  std::vector<ExecutionSpan> spans;
  add_execution(spans, "jit_step", 100, 40);
  add_execution(spans, "jit_eval", 200, 40);
  add_execution(spans, "jit_step", 300, 40);
  // The GPU runs behind: step 1's kernel starts after jit_eval was enqueued, step 2's kernel never runs.
  const std::vector<DeviceProgramEvent> dev{{250, 7, 1, 1}, {260, 9, 2, 1}};
  const std::vector<ModuleRef> modules{{"jit_step", 7, 100}, {"jit_eval", 9, 10}};
  const auto runs = build_executions(input(spans, dev, modules));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].module, "jit_step");
  EXPECT_EQ(runs[0].launched, true);
  EXPECT_EQ(runs[0].program_id, 7u);
  EXPECT_EQ(runs[1].module, "jit_eval");
  EXPECT_EQ(runs[1].launched, true);
  EXPECT_EQ(runs[2].module, "jit_step");
  EXPECT_EQ(runs[2].number, 2);
  // No device event after it at all, but its thunks were enqueued: the device trace ended, not the program.
  EXPECT_FALSE(runs[2].launched.has_value());
}

TEST(RuntimeExecutions, AnExecutionThatFailedBeforeItsModuleSpanIsNamedFromPjitAndNeverLaunched) {
  std::vector<ExecutionSpan> spans;
  spans.push_back(span(ExecutionKind::PjitFunction, "step", 90, 100));
  add_execution(spans, "jit_step", 100, 40);
  spans.push_back(span(ExecutionKind::PjitFunction, "step", 290, 100));
  add_execution(spans, "jit_step", 300, 40, /*module_span=*/false);
  spans.push_back(span(ExecutionKind::PjitFunction, "other", 500, 10));  // keeps the device trace "running"
  const std::vector<DeviceProgramEvent> dev{{120, 7, 1, 1}, {505, 3, 0, 1}};
  const std::vector<ModuleRef> modules{{"jit_step", 7, 100}};
  const auto runs = build_executions(input(spans, dev, modules));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[1].module_from_pjit);
  EXPECT_EQ(runs[1].module, "jit_step");
  EXPECT_FALSE(runs[1].has_module_span);
  EXPECT_EQ(runs[1].launched, false);
  EXPECT_EQ(runs[1].program_id, 7u);
}

TEST(RuntimeExecutions, WithoutDeviceEventsLaunchIsUnknown) {
  std::vector<ExecutionSpan> spans;
  add_execution(spans, "jit_step", 100, 40);
  const std::vector<ModuleRef> modules{{"jit_step", 7, 100}};
  const auto runs = build_executions(input(spans, {}, modules));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].launched.has_value());
}

TEST(RuntimeExecutions, SameNamedModulesAreNumberedAndLabelledByProgramId) {
  std::vector<ExecutionSpan> spans;
  add_execution(spans, "jit_step", 100, 40);
  add_execution(spans, "jit_step", 200, 40);
  add_execution(spans, "jit_step", 300, 40);
  const std::vector<DeviceProgramEvent> dev{{110, 7, 1, 1}, {210, 8, 1, 1}, {310, 7, 1, 1}};
  const std::vector<ModuleRef> modules{{"jit_step", 7, 100}, {"jit_step", 8, 100}};
  const auto runs = build_executions(input(spans, dev, modules));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].number, 2);
  EXPECT_EQ(runs[2].label, "jit_step(7)");
  EXPECT_EQ(runs[1].number, 1);
  EXPECT_EQ(runs[1].label, "jit_step(8)");
}

TEST(RuntimeExecutions, AllocatorAndGrowthOfTheModule) {
  std::vector<ExecutionSpan> spans;
  MemoryScript mem(10000, {1000, 0});
  for (int i = 0; i < 4; ++i) {
    const std::int64_t t = 100 + i * 100;
    add_execution(spans, "jit_step", t, 40);
    mem.alloc(t + 5, 10 + static_cast<std::uint64_t>(i), 300);  // temp
    mem.alloc(t + 6, 20 + static_cast<std::uint64_t>(i), 100);  // output, kept
    mem.free(t + 30, 10 + static_cast<std::uint64_t>(i), 300);
  }
  const std::vector<ModuleRef> modules{{"jit_step", 7, 400}};
  const std::vector<DeviceProgramEvent> dev{{110, 7, 1, 1}, {210, 7, 1, 1}, {310, 7, 1, 1}, {410, 7, 1, 1}};
  const auto runs = build_executions(input(spans, dev, modules, mem.events()));
  const ModuleRuntime m = analyze_module_executions(modules[0], runs, mem.events());
  ASSERT_EQ(m.executions.size(), 4u);
  EXPECT_EQ(m.allocator, 0u);
  EXPECT_EQ(m.executions[0].bytes_in_use_at_start, 1000);
  EXPECT_EQ(m.executions[3].bytes_in_use_at_start, 1300);
  EXPECT_EQ(m.growth_per_execution, 100);
  EXPECT_TRUE(m.growth_consistent);
  EXPECT_EQ(m.growth_steps, (std::vector<std::int64_t>{100, 100, 100}));
  EXPECT_EQ(m.never_launched, 0);
}

TEST(RuntimeExecutions, FlatInUseIsNotConsistentGrowth) {
  std::vector<ExecutionSpan> spans;
  MemoryScript mem(10000, {1000, 0});
  for (int i = 0; i < 4; ++i) {
    const std::int64_t t = 100 + i * 100;
    add_execution(spans, "jit_step", t, 40);
    mem.alloc(t + 5, 1, 300).free(t + 30, 1, 300);
  }
  const std::vector<ModuleRef> modules{{"jit_step", 7, 400}};
  const auto runs = build_executions(input(spans, {}, modules, mem.events()));
  const ModuleRuntime m = analyze_module_executions(modules[0], runs, mem.events());
  EXPECT_EQ(m.growth_per_execution, 0);
  EXPECT_FALSE(m.growth_consistent);
}

std::vector<RuntimeExecution> runs_of(
    std::initializer_list<std::tuple<std::string, std::uint64_t, std::optional<bool>, bool>> list) {
  std::vector<RuntimeExecution> out;
  std::int64_t t = 0;
  for (const auto& [name, id, launched, span] : list) {
    RuntimeExecution e;
    e.module = name;
    e.program_id = id;
    e.launched = launched;
    e.has_module_span = span;
    e.start_ps = t += 100;
    out.push_back(e);
  }
  return out;
}

TEST(RuntimeModuleChoice, PrefersTheModuleWhoseLastExecutionNeverStarted) {
  const std::vector<ModuleRef> modules{{"jit_big", 1, 1000}, {"jit_step", 2, 100}};
  const auto runs =
      runs_of({{"jit_big", 1, true, true}, {"jit_step", 2, true, true}, {"jit_step", 2, false, false}});
  const auto sel = choose_default_module(modules, runs);
  EXPECT_EQ(sel.choice, ModuleChoice::LastNeverStarted);
  EXPECT_EQ(sel.module, 1u);
}

TEST(RuntimeModuleChoice, AKernelLessTrivialModuleIsNotAFailure) {
  // jit_alias never launches anything, every time, and always has its module span: a trivial module.
  const std::vector<ModuleRef> modules{{"jit_big", 1, 1000}, {"jit_alias", 2, 10}};
  const auto runs =
      runs_of({{"jit_alias", 2, false, true}, {"jit_big", 1, true, true}, {"jit_alias", 2, false, true}});
  const auto sel = choose_default_module(modules, runs);
  EXPECT_EQ(sel.choice, ModuleChoice::LargestExecuted);
  EXPECT_EQ(sel.module, 0u);
}

TEST(RuntimeModuleChoice, LargestExecutedThenLargest) {
  const std::vector<ModuleRef> modules{{"jit_huge", 1, 5000}, {"jit_step", 2, 100}, {"jit_eval", 3, 300}};
  auto runs = runs_of({{"jit_step", 2, true, true}, {"jit_eval", 3, true, true}});
  auto sel = choose_default_module(modules, runs);
  EXPECT_EQ(sel.choice, ModuleChoice::LargestExecuted);
  EXPECT_EQ(sel.module, 2u);
  sel = choose_default_module(modules, {});
  EXPECT_EQ(sel.choice, ModuleChoice::LargestModule);
  EXPECT_EQ(sel.module, 0u);
  EXPECT_EQ(choose_default_module({}, runs).choice, ModuleChoice::None);
}

}  // namespace
}  // namespace oomscope::analysis
