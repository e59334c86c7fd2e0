// The plan placed on the wall clock of each execution (core/analysis/timeline/plan_timeline.h).
//
// Real captures: the figures pinned here come from tests/data/tools/plan_timeline.py (kernel times, bytes in
// use at start, runtime peak) and plan_peak.py (planned peak), which read the files with Python's protobuf
// and share no code with oomscope:
//   /usr/bin/python3 tests/data/tools/plan_timeline.py tests/data/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb
//       15 GPU_1_bfc /device:GPU:1 cudnn-conv.1 loop_transpose_fusion
//   /usr/bin/python3 tests/data/tools/plan_peak.py tests/data/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb

#include "core/analysis/timeline/plan_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/report/report.h"
#include "core/capture/reader.h"

namespace oomscope::analysis {
namespace {

std::string data(const std::string& name) { return std::string(OOMSCOPE_TEST_DATA) + "/" + name; }

std::int64_t first_position(const MemoryCurve& curve, std::string_view instruction) {
  for (std::size_t i = 0; i < curve.size(); ++i)
    if (curve.instruction_at(i) == instruction) return std::int64_t(i);
  return -1;
}

struct Mapped {
  std::shared_ptr<const capture::Capture> capture;
  HostReport report;
  PlanTimeline timeline;
};

Mapped map_file(const std::string& name) {
  Mapped m;
  m.capture = capture::read_capture(data(name));
  m.report = build_host_report(*m.capture, {});
  NullProgress progress;
  m.timeline = map_plan_to_time(*m.capture, m.report, progress);
  return m;
}

TEST(PlanTimelineRealData, Conv3dKernelsPlaceInstructionsAtTheirFirstKernel) {
  const Mapped m = map_file("jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");
  ASSERT_TRUE(m.report.plan);
  const PlanTimeline& t = m.timeline;
  EXPECT_EQ(t.module, "jit_forward_3d_conv");
  EXPECT_EQ(t.program_id, 15u);
  ASSERT_EQ(t.executions.size(), 5u);
  // The report analyses the executions on GPU_1_bfc (the device with the most, issue 8); the script, run
  // with 15 GPU_1_bfc /device:GPU:1, gives for the first of them:
  const std::int64_t conv = first_position(m.report.plan->curve, "cudnn-conv.1");
  const std::int64_t transpose = first_position(m.report.plan->curve, "loop_transpose_fusion");
  ASSERT_GE(conv, 0);
  ASSERT_GE(transpose, 0);
  const ExecutionTimeline& first = t.executions[0];
  EXPECT_EQ(first.start_ps, 1733702000);
  EXPECT_EQ(first.end_ps, 28127897000);
  EXPECT_EQ(first.time_at(conv), 27410536000);
  EXPECT_EQ(first.time_at(transpose), 27256936000);
  EXPECT_EQ(first.planned_peak_time_ps, 27410536000);  // the peak is at cudnn-conv.1
  EXPECT_EQ(first.in_use_at_start, 581070848);
  EXPECT_EQ(first.runtime_peak_bytes, 1732169984);
  for (std::size_t i = 0; i < 5; ++i) {
    const ExecutionTimeline& x = t.executions[i];
    SCOPED_TRACE("execution " + std::to_string(i + 1));
    EXPECT_EQ(x.mapping, TimeMapping::Kernels);
    EXPECT_TRUE(x.by_correlation);
    EXPECT_EQ(x.planned_peak_bytes, 1158144000);
    EXPECT_EQ(x.difference_bytes, x.runtime_peak_bytes - 1158144000);
    EXPECT_FALSE(x.explanation.empty());
    // Times never go backwards in program order.
    for (std::size_t k = 1; k < x.anchors.size(); ++k) {
      EXPECT_LT(x.anchors[k - 1].position, x.anchors[k].position);
      EXPECT_LE(x.anchors[k - 1].time_ps, x.anchors[k].time_ps);
    }
  }
  // The first execution's live-at-start groups sum to what was in use (read).
  std::int64_t sum = 0;
  for (const LiveGroup& g : t.executions[0].live_at_start) sum += g.bytes;
  EXPECT_EQ(sum, t.executions[0].in_use_at_start);
}

TEST(PlanTimelineRealData, TpuCaptureWithoutInstructionEventsIsStretched) {
  const Mapped m = map_file("jax_tpu_v6e_inference.xplane.pb");
  const PlanTimeline& t = m.timeline;
  if (!m.report.plan || m.report.plan->curve.size() == 0) {
    EXPECT_FALSE(t.notes.empty());
    EXPECT_TRUE(t.executions.empty());
    return;
  }
  ASSERT_FALSE(t.executions.empty());
  for (const ExecutionTimeline& x : t.executions) {
    EXPECT_EQ(x.mapping, TimeMapping::Stretched);
    EXPECT_EQ(x.time_at(0), x.start_ps);
    EXPECT_EQ(x.time_at(t.positions - 1), x.end_ps);
  }
  EXPECT_TRUE(std::any_of(t.notes.begin(), t.notes.end(),
                          [](const std::string& n) { return n.find("stretched") != std::string::npos; }));
}

// ---- hand-built input ---------------------------------------------------------------------------------

struct HandBuilt {
  PlanAnalysis plan;
  std::vector<RuntimeExecution> executions;
  std::vector<capture::DeviceProgramEvent> device;
  std::vector<capture::MemoryEvent> memory;
  std::vector<std::string> strings{"", "jit_step", "param", "fusion.1", "fusion.2", "tuple"};

  HandBuilt() {
    plan.module_name = "jit_step";
    plan.program_id = 42;
    // Positions: param, param, fusion.1, fusion.1, tuple, fusion.2, fusion.2, tuple
    plan.curve.instruction_names = {"param", "fusion.1", "tuple", "fusion.2"};
    plan.curve.instruction = {0, 0, 1, 1, 2, 3, 3, 2};
    plan.curve.heap_bytes = {10, 20, 60, 40, 40, 90, 50, 30};
    plan.curve.indefinite_bytes = 100;
    plan.peak_bytes = 190;
    plan.peak_event_index = 5;
    plan.parameters_bytes = 60;
    RuntimeExecution e;
    e.module = "jit_step";
    e.program_id = 42;
    e.start_ps = 1000;
    e.end_ps = 2000;
    e.allocator = 0;
    e.number = 1;
    executions.push_back(e);
    auto alloc = [&](std::int64_t t, std::uint64_t addr, std::int64_t bytes, std::int64_t in_use) {
      capture::MemoryEvent m;
      m.time_ps = t;
      m.addr = addr;
      m.allocation_bytes = bytes;
      m.bytes_in_use = in_use;
      memory.push_back(m);
    };
    alloc(500, 1, 80, 80);     // live at start
    alloc(1500, 2, 150, 230);  // inside: the runtime peak
  }

  PlanTimeline run() {
    PlanTimelineInput in;
    in.plan = &plan;
    in.executions = executions;
    in.all_executions = executions;
    in.allocator = 0;
    in.device_events = device;
    in.strings = strings;
    in.memory = memory;
    NullProgress progress;
    return map_plan_to_time(in, progress);
  }
};

TEST(PlanTimeline, WithoutDeviceEventsThePlanIsStretchedOverTheHostSpan) {
  HandBuilt h;
  const PlanTimeline t = h.run();
  ASSERT_EQ(t.executions.size(), 1u);
  const ExecutionTimeline& x = t.executions[0];
  EXPECT_EQ(x.mapping, TimeMapping::Stretched);
  EXPECT_EQ(x.time_at(0), 1000);
  EXPECT_EQ(x.time_at(7), 2000);
  EXPECT_EQ(x.time_at(5), 1000 + 1000 * 5 / 7);
  EXPECT_EQ(x.planned_peak_time_ps, x.time_at(5));
  EXPECT_EQ(x.in_use_at_start, 80);
  EXPECT_EQ(x.runtime_peak_bytes, 230);
  EXPECT_EQ(x.runtime_peak_time_ps, 1500);
  EXPECT_EQ(x.difference_bytes, 40);
  EXPECT_NE(x.explanation.find("+40 B over the plan"), std::string::npos) << x.explanation;
  EXPECT_TRUE(std::any_of(t.notes.begin(), t.notes.end(),
                          [](const std::string& n) { return n.find("stretched") != std::string::npos; }));
}

TEST(PlanTimeline, KernelsPlaceTheirInstructionsAndTheRestIsInterpolated) {
  HandBuilt h;
  // fusion.1 ran at 1200 (two kernels, the first one counts), fusion.2 at 1600 ending 2400.
  h.device.push_back({1250, 42, 1, 0, 0, 50, 3});
  h.device.push_back({1200, 42, 1, 0, 0, 40, 3});
  h.device.push_back({1600, 42, 1, 0, 0, 800, 4});
  std::sort(h.device.begin(), h.device.end(), [](auto& a, auto& b) { return a.time_ps < b.time_ps; });
  const PlanTimeline t = h.run();
  const ExecutionTimeline& x = t.executions.at(0);
  EXPECT_EQ(x.mapping, TimeMapping::Kernels);
  EXPECT_FALSE(x.by_correlation);
  EXPECT_EQ(x.kernels, 3);
  EXPECT_EQ(x.timed_instructions, 2);
  EXPECT_EQ(x.untimed_instructions, 2);  // param, tuple
  EXPECT_EQ(x.end_ps, 2400);             // the last kernel ended after the host span
  EXPECT_EQ(x.time_at(0), 1000);         // before the first kernel: from the start
  EXPECT_EQ(x.time_at(2), 1200);
  EXPECT_EQ(x.time_at(3), 1200);
  EXPECT_EQ(x.time_at(4), 1400);  // tuple between fusion.1 (1200) and fusion.2 (1600)
  EXPECT_EQ(x.time_at(5), 1600);
  EXPECT_EQ(x.time_at(7), 2400);
  EXPECT_EQ(x.planned_peak_time_ps, 1600);
  EXPECT_EQ(x.position_at(1599), 4);
  EXPECT_EQ(x.position_at(1600), 6);
  EXPECT_EQ(x.position_at(0), 0);
}

TEST(PlanTimeline, KernelsOfAnotherProgramAreIgnored) {
  HandBuilt h;
  h.device.push_back({1200, 7, 1, 0, 0, 40, 3});
  EXPECT_EQ(h.run().executions.at(0).mapping, TimeMapping::Stretched);
}

TEST(PlanTimeline, PointsAreBoundedAndKeepThePeak) {
  HandBuilt h;
  h.plan.curve.instruction.assign(10000, 1);
  h.plan.curve.heap_bytes.resize(10000);
  for (std::size_t i = 0; i < 10000; ++i) h.plan.curve.heap_bytes[i] = std::int64_t((i * 7919) % 1000);
  h.plan.curve.heap_bytes[6789] = 5000;
  h.plan.peak_event_index = 6789;
  h.executions[0].end_ps = 1000 + 10000;
  const PlanTimeline t = h.run();
  const ExecutionTimeline& x = t.executions.at(0);
  const auto pts = planned_points(x, h.plan.curve, 6789, 0, 100000, 50);
  EXPECT_LE(pts.size(), 2u * 50 + 1);
  EXPECT_TRUE(std::any_of(pts.begin(), pts.end(), [](const TimeBytes& p) { return p.bytes == 5100; }));
  EXPECT_TRUE(std::is_sorted(pts.begin(), pts.end(),
                             [](const TimeBytes& a, const TimeBytes& b) { return a.time_ps < b.time_ps; }));
  // A window that misses the execution has no planned points; runtime points start at the window's edge.
  EXPECT_TRUE(planned_points(x, h.plan.curve, 6789, 50000, 60000, 50).empty());
  const auto rt = runtime_points(t, h.memory, 1000, 3000, 50);
  ASSERT_EQ(rt.size(), 2u);
  EXPECT_EQ(rt[0], (TimeBytes{1000, 80, -1}));
  EXPECT_EQ(rt[1], (TimeBytes{1500, 230, -1}));
}

TEST(PlanTimeline, OnlyABoundedNumberOfExecutionsGetLiveGroups) {
  HandBuilt h;
  for (int i = 1; i < 5; ++i) {
    RuntimeExecution e = h.executions[0];
    e.start_ps += 2000 * i;
    e.end_ps += 2000 * i;
    e.number = i + 1;
    h.executions.push_back(e);
  }
  HostTimeline host;
  host.name = [](std::int64_t) { return std::string_view(); };
  PlanTimelineInput in;
  in.plan = &h.plan;
  in.executions = h.executions;
  in.all_executions = h.executions;
  in.allocator = 0;
  in.strings = h.strings;
  in.memory = h.memory;
  in.host = &host;
  in.max_grouped = 2;
  NullProgress progress;
  const PlanTimeline t = map_plan_to_time(in, progress);
  ASSERT_EQ(t.executions.size(), 5u);
  std::vector<bool> grouped;
  for (const ExecutionTimeline& x : t.executions) grouped.push_back(x.grouped);
  EXPECT_EQ(grouped, (std::vector<bool>{false, false, false, false, true}));  // only the last one
  EXPECT_NE(t.executions[1].explanation.find("select a time range"), std::string::npos);
  EXPECT_FALSE(t.executions[4].live_at_start.empty());
}

TEST(PlanTimeline, LiveKindsFromGroupLabels) {
  EXPECT_EQ(live_kind({"outputs of jit_step execution 3", 1, 1, 1, false}), LiveKind::EarlierOutputs);
  EXPECT_EQ(live_kind({"DevicePut", 1, 1, 1, false}), LiveKind::HostCopies);
  EXPECT_EQ(live_kind({"allocated before the capture started", 1, 0, 0, true}), LiveKind::BeforeCapture);
  EXPECT_EQ(live_kind({"no enclosing host event", 1, 1, 1, false}), LiveKind::Other);
}

}  // namespace
}  // namespace oomscope::analysis
