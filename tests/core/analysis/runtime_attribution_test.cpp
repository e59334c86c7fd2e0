#include "core/analysis/runtime/runtime_attribution.h"

#include <gtest/gtest.h>

#include <map>

#include "core/analysis/runtime/runtime_analysis.h"
#include "runtime_test_events.h"

namespace oomscope::analysis {
namespace {

using capture::EventRecord;
using capture::ExecutionKind;
using testing::add_execution;
using testing::MemoryScript;
using testing::record;

const std::map<std::int64_t, std::string> kNames{{1, "MemoryAllocation"},   {2, "BufferFromHostBuffer"},
                                                 {3, "$<unknown> append"},  {4, "$train.py:10 main"},
                                                 {5, "MemoryDeallocation"}, {6, "Wait for donation holds"}};

// The timeline views `lines`, which must outlive it.
HostTimeline timeline(const std::vector<std::vector<EventRecord>>& lines) {
  HostTimeline t;
  for (const auto& l : lines) t.lines.emplace_back(l);
  t.name = [](std::int64_t id) -> std::string_view {
    auto it = kNames.find(id);
    return it == kNames.end() ? std::string_view() : std::string_view(it->second);
  };
  return t;
}

TEST(RuntimeAttribution, GroupsLiveMemoryByTheHostEventThatAllocatedIt) {
  MemoryScript mem(100000, {700, 0});  // 700 bytes held before the capture
  mem.alloc(105, 1, 100)               // inside execution 1 of jit_step
      .alloc(205, 2, 100)              // inside execution 2
      .alloc(250, 3, 40, 1)            // a device_put on line 1, inside a Python frame
      .alloc(260, 4, 8, 1);            // no span around it
  RuntimeExecution e1, e2;
  e1.module = e2.module = "jit_step";
  e1.label = e2.label = "jit_step";
  e1.start_ps = 100, e1.end_ps = 140, e1.number = 1;
  e2.start_ps = 200, e2.end_ps = 240, e2.number = 2;
  const std::vector<RuntimeExecution> runs{e1, e2};
  // Line 1: a Python frame [240, 300) holding BufferFromHostBuffer [245, 255); line 0 irrelevant here.
  const std::vector<std::vector<EventRecord>> lines{
      {}, {record(4, 240, 60), record(2, 245, 10), record(1, 250, 0)}};
  const HostTimeline host = timeline(lines);
  const std::vector<std::size_t> live{0, 1, 2, 3};
  const auto groups = group_live_by_host_event(mem.events(), live, runs, 0, host, 700 + 248);
  std::map<std::string, LiveGroup> by;
  for (const auto& g : groups) by[g.label] = g;
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups.front().label, "allocated before the capture started");
  EXPECT_EQ(by["allocated before the capture started"].bytes, 700);
  EXPECT_TRUE(by["allocated before the capture started"].before_capture);
  EXPECT_EQ(by["outputs of jit_step execution 1"].bytes, 100);
  EXPECT_EQ(by["outputs of jit_step execution 2"].bytes, 100);
  EXPECT_EQ(by["BufferFromHostBuffer"].bytes, 40);  // the innermost non-Python span wins
  EXPECT_EQ(by["$train.py:10 main"].bytes, 8);      // only a Python frame encloses it
}

TEST(RuntimeAttribution, ACacheNamesEachAllocationOnceWithTheSameGroups) {
  MemoryScript mem(100000, {0, 0});
  mem.alloc(105, 1, 100).alloc(205, 2, 100).alloc(250, 3, 40, 1).alloc(260, 4, 8, 1);
  RuntimeExecution e1, e2;
  e1.module = e2.module = e1.label = e2.label = "jit_step";
  e1.start_ps = 100, e1.end_ps = 140, e1.number = 1;
  e2.start_ps = 200, e2.end_ps = 240, e2.number = 2;
  const std::vector<RuntimeExecution> runs{e1, e2};
  const std::vector<std::vector<EventRecord>> lines{
      {}, {record(4, 240, 60), record(2, 245, 10), record(1, 250, 0)}};
  const HostTimeline host = timeline(lines);
  LiveLabelCache cache;
  // Growing live sets, as at successive execution starts: cached and uncached answers agree each time.
  for (const std::vector<std::size_t>& live : {std::vector<std::size_t>{0}, std::vector<std::size_t>{0, 1, 2},
                                               std::vector<std::size_t>{0, 1, 2, 3}}) {
    const auto plain = group_live_by_host_event(mem.events(), live, runs, 0, host, 248);
    const auto cached = group_live_by_host_event(mem.events(), live, runs, 0, host, 248, &cache);
    ASSERT_EQ(plain.size(), cached.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(plain[i].label, cached[i].label);
      EXPECT_EQ(plain[i].bytes, cached[i].bytes);
      EXPECT_EQ(plain[i].count, cached[i].count);
    }
    EXPECT_EQ(cache.labels.size(), live.size());
  }
  EXPECT_EQ(cache.labels.at(2), "BufferFromHostBuffer");
}

TEST(RuntimeAttribution, HostEventsBetweenCountsNamesAndSkipsAllocatorEvents) {
  const std::vector<std::vector<EventRecord>> lines{
      {record(3, 10, 1), record(3, 20, 1), record(1, 25, 0), record(6, 30, 1), record(3, 99, 1)},
      {record(5, 15, 0), record(6, 16, 1)}};
  std::int64_t total = 0;
  const HostTimeline host = timeline(lines);
  const auto names = host_events_between(host, 10, 99, total);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].name, "$<unknown> append");
  EXPECT_EQ(names[0].count, 2);
  EXPECT_EQ(names[1].name, "Wait for donation holds");
  EXPECT_EQ(names[1].count, 2);
  EXPECT_EQ(total, 4);
}

// The leak signature end to end: every step's 100-byte output stays alive.
TEST(RuntimeAnalysisEndToEnd, LeakAcrossStepsShowsGrowthAndEarlierOutputs) {
  std::vector<capture::ExecutionSpan> spans;
  MemoryScript mem(100000, {1000, 0});
  std::vector<EventRecord> line0;
  std::vector<capture::DeviceProgramEvent> dev;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t t = 1000 + i * 1000;
    add_execution(spans, "jit_step", t, 400);
    mem.alloc(t + 10, static_cast<std::uint64_t>(100 + i), 500)
        .alloc(t + 11, static_cast<std::uint64_t>(200 + i), 100);
    mem.free(t + 300, static_cast<std::uint64_t>(100 + i), 500);
    line0.push_back(record(3, t + 600, 5));  // list.append between steps
    dev.push_back({t + 50, 7, 1, 1});
  }
  const std::vector<std::string> strings{"", "jit_step"};
  const std::vector<ModuleRef> modules{{"jit_step", 7, 600}};
  RuntimeInput in;
  in.allocator_names = {"GPU_0_bfc"};
  in.executions.spans = spans;
  in.executions.device_events = dev;
  in.executions.strings = strings;
  in.executions.memory = mem.events();
  in.executions.modules = modules;
  const std::vector<std::vector<EventRecord>> lines{line0};  // the timeline views these
  in.host = timeline(lines);
  const RuntimeAnalysis r = analyze_runtime(in);
  ASSERT_TRUE(r.module.has_value());
  EXPECT_EQ(r.choice, ModuleChoice::LargestExecuted);
  EXPECT_EQ(r.module->growth_per_execution, 100);
  EXPECT_TRUE(r.module->growth_consistent);
  EXPECT_EQ(r.module->live_at_last_start_bytes, 1300);
  ASSERT_EQ(r.module->host_events_between.size(), 1u);
  EXPECT_EQ(r.module->host_events_between[0].name, "$<unknown> append");
  std::vector<std::string> labels;
  for (const auto& g : r.module->live_at_last_start) labels.push_back(g.label);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "allocated before the capture started", "outputs of jit_step execution 1",
                        "outputs of jit_step execution 2", "outputs of jit_step execution 3"}));
}

}  // namespace
}  // namespace oomscope::analysis
