// Executions of several modules that share a name (eager JAX makes many jit_matmul) are credited by the
// program id of the kernels each one launched: host launch -> correlation_id -> device event -> program_id.

#include <gtest/gtest.h>

#include "core/analysis/runtime_executions.h"
#include "tests/core/analysis/runtime_test_events.h"

namespace oomscope::analysis {
namespace {

using capture::DeviceProgramEvent;
using capture::ExecutionSpan;
using capture::LaunchEvent;
using testing::add_execution;

const std::vector<std::string> kStrings{"", "jit_matmul"};

struct Interleaved {
  std::vector<ExecutionSpan> spans;
  std::vector<DeviceProgramEvent> dev;
  std::vector<LaunchEvent> launches;
  const std::vector<ModuleRef> modules{
      {"jit_matmul", 3, 100}, {"jit_matmul", 5, 200}, {"jit_matmul", 8, 300}};
  const std::vector<std::uint64_t> order{5, 3, 8, 3, 5};

  explicit Interleaved(bool launch_carries_program) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::int64_t t = 100 * static_cast<std::int64_t>(i + 1);
      add_execution(spans, "jit_matmul", t, 40);
      LaunchEvent l;
      l.time_ps = t + 5;
      l.correlation_id = 1000 + i;
      l.device_id = 0;
      if (launch_carries_program) l.program_id = order[i];
      l.line = 9;  // the driver-API callbacks sit on another thread line than the TraceMe spans
      launches.push_back(l);
      // The GPU runs behind: each kernel starts after the next execution was enqueued.
      dev.push_back(DeviceProgramEvent{t + 150, order[i], 1, 1, 1000 + i});
    }
  }
  ExecutionInput input(bool with_launches) const {
    ExecutionInput in;
    in.spans = spans;
    in.device_events = dev;
    if (with_launches) in.launches = launches;
    in.strings = kStrings;
    in.modules = modules;
    return in;
  }
};

TEST(RuntimeProgramMatch, SameNamedModulesAreCreditedByTheProgramTheyLaunched) {
  for (bool on_launch : {false, true}) {  // CUPTI: through the device event; roctracer: on the launch itself
    const Interleaved c(on_launch);
    const auto runs = build_executions(c.input(true));
    ASSERT_EQ(runs.size(), 5u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].program_id, c.order[i]) << i;
      EXPECT_TRUE(runs[i].matched_by_program_id) << i;
      EXPECT_EQ(runs[i].launched, true) << i;
    }
    // Numbered per module: 5 -> #1, #2; 3 -> #1, #2; 8 -> #1.
    EXPECT_EQ(runs[0].number, 1);
    EXPECT_EQ(runs[1].number, 1);
    EXPECT_EQ(runs[3].number, 2);
    EXPECT_EQ(runs[4].number, 2);
    EXPECT_EQ(runs[3].label, "jit_matmul(3)");
    const ModuleRuntime three = analyze_module_executions(c.modules[0], runs, {});
    ASSERT_EQ(three.executions.size(), 2u);
    EXPECT_EQ(three.executions[0].start_ps, 200);
    EXPECT_EQ(three.executions[1].start_ps, 400);
  }
}

TEST(RuntimeProgramMatch, WithoutLaunchesTheMatchIsByNameAndSaysSo) {
  const Interleaved c(false);
  const auto runs = build_executions(c.input(false));
  ASSERT_EQ(runs.size(), 5u);
  for (const RuntimeExecution& e : runs) EXPECT_FALSE(e.matched_by_program_id);
}

}  // namespace
}  // namespace oomscope::analysis
