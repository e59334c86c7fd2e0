// Executions of several modules that share a name (eager JAX makes many jit_matmul) are credited by the
// program id of the kernels each one launched: host launch -> correlation_id -> device event -> program_id.

#include <gtest/gtest.h>

#include "core/analysis/runtime/runtime_executions.h"
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

// Two threads run jit_a on GPU 0 and jit_b on GPU 1 at the same time, so each window holds launches of both
// programs. The tracer numbers devices 700/701 (learned from the correlation ids); each execution's own
// device comes from its allocator, and only its launches there count. jit_c allocates nothing: its device is
// unknown, its window names two programs, and it stays matched by name, with the programs recorded.
TEST(RuntimeProgramMatch, LaunchesCountOnlyOnTheExecutionsOwnDevice) {
  const std::vector<std::string> strings{""};
  const std::vector<std::string> planes{"/host:CPU", "/device:GPU:0", "/device:GPU:1"};
  const std::vector<std::string> allocators{"GPU_0_bfc", "GPU_1_bfc"};
  const std::vector<ModuleRef> modules{{"jit_a", 21, 10}, {"jit_b", 22, 20}, {"jit_c", 23, 5}};
  std::vector<ExecutionSpan> spans;
  add_execution(spans, "jit_a", 1000, 400, true, 1);
  add_execution(spans, "jit_b", 1010, 400, true, 2);
  add_execution(spans, "jit_c", 3000, 400, true, 1);
  add_execution(spans, "jit_b", 3010, 400, true, 2);
  std::vector<capture::MemoryEvent> memory(3);
  memory[0].time_ps = 1001, memory[0].allocator = 0, memory[0].line = 1;
  memory[1].time_ps = 1011, memory[1].allocator = 1, memory[1].line = 2;
  memory[2].time_ps = 3011, memory[2].allocator = 1, memory[2].line = 2;
  std::vector<LaunchEvent> launches;
  std::vector<DeviceProgramEvent> dev;
  std::uint64_t corr = 1;
  auto launch = [&](std::int64_t t, std::int64_t device, std::uint64_t program) {
    LaunchEvent l;
    l.time_ps = t;
    l.correlation_id = corr;
    l.device_id = 700 + device;
    l.line = 9;
    launches.push_back(l);
    dev.push_back(DeviceProgramEvent{t + 5, program, 0, static_cast<std::uint32_t>(1 + device), corr++});
  };
  // Window of jit_a (1000..1400): 2 launches of 21 on GPU 0, 3 of 22 on GPU 1 (a majority would pick 22).
  launch(1200, 0, 21), launch(1210, 1, 22), launch(1220, 0, 21), launch(1230, 1, 22), launch(1240, 1, 22);
  launch(3200, 0, 23), launch(3210, 1, 22);
  ExecutionInput in;
  in.spans = spans;
  in.device_events = dev;
  in.launches = launches;
  in.strings = strings;
  in.memory = memory;
  in.modules = modules;
  in.plane_names = planes;
  in.allocator_names = allocators;
  const auto runs = build_executions(in);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].module, "jit_a");
  EXPECT_EQ(runs[0].program_id, 21u);
  EXPECT_TRUE(runs[0].matched_by_program_id);
  EXPECT_EQ(runs[1].program_id, 22u);
  EXPECT_TRUE(runs[1].matched_by_program_id);
  EXPECT_EQ(runs[2].module, "jit_c");
  EXPECT_FALSE(runs[2].matched_by_program_id);
  EXPECT_EQ(runs[2].ambiguous_programs, (std::vector<std::uint64_t>{22, 23}));
  EXPECT_EQ(runs[3].program_id, 22u);  // its window holds 23 (GPU 0) too, but it runs on GPU 1
  EXPECT_TRUE(runs[3].matched_by_program_id);
  // Without plane names nothing tells the devices apart: jit_a's window is ambiguous, never settled by
  // majority.
  in.plane_names = {};
  const auto blind = build_executions(in);
  EXPECT_FALSE(blind[0].matched_by_program_id);
  EXPECT_EQ(blind[0].ambiguous_programs, (std::vector<std::uint64_t>{21, 22}));
}

TEST(RuntimeProgramMatch, AllocatorNamesTheirDevicePlane) {
  const std::vector<std::string> planes{"/host:CPU", "/device:TPU:0", "/device:TPU:1", "/device:GPU:1"};
  EXPECT_EQ(device_plane_of_allocator("TPU_1", planes), 2u);
  EXPECT_EQ(device_plane_of_allocator("GPU_1_bfc", planes), 3u);
  EXPECT_EQ(device_plane_of_allocator("GPU_collectivememory_1_bfc", planes), 3u);
  EXPECT_EQ(device_plane_of_allocator("xla_gpu_host_bfc", planes), std::nullopt);
  EXPECT_EQ(device_plane_of_allocator("GPU_2_bfc", planes), std::nullopt);
  EXPECT_EQ(device_plane_of_allocator("device_0", planes), 1u);
}

// Launches in time order whose correlation ids jump back and forth (the index is searched from where the
// previous launch's id was found): each execution still gets the program of its own kernels, also when
// other device events with ids in between sit in the index.
TEST(RuntimeProgramMatch, CorrelationIdsOutOfOrderStillFindTheirKernels) {
  const std::vector<ModuleRef> modules{
      {"jit_matmul", 3, 100}, {"jit_matmul", 5, 200}, {"jit_matmul", 8, 300}};
  std::vector<ExecutionSpan> spans;
  std::vector<DeviceProgramEvent> dev;
  std::vector<LaunchEvent> launches;
  constexpr std::size_t kRuns = 64;
  const auto program_of = [&](std::size_t i) { return modules[(i * 7 + i / 5) % modules.size()].program_id; };
  for (std::size_t i = 0; i < kRuns; ++i) {
    const std::int64_t t = 100 * static_cast<std::int64_t>(i + 1);
    add_execution(spans, "jit_matmul", t, 40);
    // A permutation of 0..63 with long jumps both ways, and ids spaced so others fit between them.
    const std::uint64_t id = 1000 + 4 * ((i * 37 + 11) % kRuns);
    LaunchEvent l;
    l.time_ps = t + 5;
    l.correlation_id = id;
    l.device_id = 0;
    l.line = 9;
    launches.push_back(l);
    dev.push_back(DeviceProgramEvent{t + 20, program_of(i), 1, 1, id});
    // Another program's kernel with the next id: found only if the search lands on the wrong entry.
    dev.push_back(DeviceProgramEvent{t + 21, program_of(i + 1), 1, 1, id + 1});
  }
  ExecutionInput in;
  in.spans = spans;
  in.device_events = dev;
  in.launches = launches;
  in.strings = kStrings;
  in.modules = modules;
  const auto runs = build_executions(in);
  ASSERT_EQ(runs.size(), kRuns);
  for (std::size_t i = 0; i < kRuns; ++i) {
    EXPECT_EQ(runs[i].program_id, program_of(i)) << i;
    EXPECT_TRUE(runs[i].matched_by_program_id) << i;
  }
}

}  // namespace
}  // namespace oomscope::analysis
