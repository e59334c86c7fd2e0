// Reader behaviour beyond the figures: field order, split planes, on-demand stats, time order,
// cancellation, progress, the TPU and sidecar paths.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/capture/reader.h"
#include "core/util/error.h"
#include "hlo.pb.h"

namespace {

using namespace oomscope::capture;
const std::string kData = OOMSCOPE_TEST_DATA;

// ---- a tiny protobuf writer, so that field order can be chosen freely ----
std::string varint(std::uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return s + static_cast<char>(v);
}
std::string vfield(int n, std::uint64_t v) { return varint(static_cast<std::uint64_t>(n) << 3) + varint(v); }
std::string lfield(int n, const std::string& payload) {
  return varint((static_cast<std::uint64_t>(n) << 3) | 2) + varint(payload.size()) + payload;
}
std::string dfield(int n, double d) {
  std::string s = varint((static_cast<std::uint64_t>(n) << 3) | 1);
  s.append(reinterpret_cast<const char*>(&d), 8);
  return s;
}
std::string stat_md(int id, const std::string& name) {
  return lfield(5, vfield(1, id) + lfield(2, vfield(1, id) + lfield(2, name)));
}
std::string event_md(int id, const std::string& name) {
  return lfield(4, vfield(1, id) + lfield(2, vfield(1, id) + lfield(2, name)));
}

// Two entries of "/host:CPU" (a split plane) whose metadata ids clash, with every message's fields in
// an unusual order: lines before metadata, events before the line's timestamp, stats before the
// event's metadata id.
std::string split_plane_capture() {
  const std::string alloc_event =
      lfield(4, lfield(4, vfield(1, 1) + vfield(7, 3)) +        // allocator_name = ref 3
                    lfield(4, vfield(1, 2) + vfield(3, 100)) +  // bytes_allocated (uint64)
                    vfield(2, 5000) + vfield(1, 1));            // offset, metadata id last
  const std::string retry = lfield(4, vfield(3, 777) + vfield(1, 2) + vfield(2, 4000));  // duration first
  const std::string spans = lfield(4, vfield(1, 3) + vfield(2, 6000) + vfield(3, 50)) +
                            lfield(4, vfield(1, 4) + vfield(2, 3000) + vfield(3, 9000));
  const std::string line1 =
      lfield(3, alloc_event + retry + spans + vfield(1, 7) + vfield(3, 10));  // timestamp last
  const std::string plane1 = line1 + lfield(2, "/host:CPU") + event_md(1, "MemoryAllocation") +
                             event_md(2, "AllocatorRetry::AllocateRaw") +
                             event_md(3, "jit_step:XLA GPU module") +
                             event_md(4, "PjitFunction(train_step)") + stat_md(1, "allocator_name") +
                             stat_md(2, "bytes_allocated") + stat_md(3, "GPU_9_bfc");
  const std::string free_event =
      lfield(4, vfield(1, 1) + vfield(2, 1000) +
                    lfield(4, vfield(1, 6) + dfield(2, 0.0)) +          // bytes_allocated (double)
                    lfield(4, vfield(1, 5) + lfield(5, "GPU_9_bfc")));  // str_value
  const std::string line2 = lfield(3, vfield(3, 20) + vfield(1, 7) + free_event);
  const std::string plane2 = lfield(2, "/host:CPU") + line2 + event_md(1, "MemoryDeallocation") +
                             stat_md(5, "allocator_name") + stat_md(6, "bytes_allocated");
  return lfield(1, plane1) + lfield(4, "host-a") + lfield(1, plane2);
}

TEST(ReaderBehaviour, SplitPlanesAndAnyFieldOrder) {
  oomscope::NullProgress none;
  auto cap = read_capture_from_memory(split_plane_capture(), "<synthetic>", none);
  ASSERT_EQ(cap->planes().size(), 1u);
  const Plane& cpu = cap->planes()[0];
  ASSERT_EQ(cpu.lines.size(), 1u);            // same line id in both entries: one timeline
  ASSERT_EQ(cpu.lines[0].events.size(), 5u);  // sorted by time: pjit, retry, alloc, module span, free
  const EventRecord& first = cpu.lines[0].events[2];
  const EventRecord& second = cpu.lines[0].events[4];
  EXPECT_EQ(first.start_ps(), 10 * 1000 + 5000);   // 15,000 ps
  EXPECT_EQ(second.start_ps(), 20 * 1000 + 1000);  // 21,000 ps
  ASSERT_EQ(cap->allocator_retries().size(), 1u);
  EXPECT_EQ(cap->allocator_retries()[0].time_ps, 14000);
  EXPECT_EQ(cap->allocator_retries()[0].duration_ps, 777);
  ASSERT_EQ(cap->executions().size(), 2u);
  EXPECT_EQ(cap->executions()[0].kind, ExecutionKind::PjitFunction);
  EXPECT_EQ(cap->executions()[0].name, "train_step");
  EXPECT_EQ(cap->executions()[0].duration_ps, 9000);
  EXPECT_EQ(cap->executions()[1].kind, ExecutionKind::XlaModule);
  EXPECT_EQ(cap->executions()[1].name, "jit_step");
  EXPECT_EQ(cap->executions()[1].time_ps, 16000);
  EXPECT_EQ(cpu.event_name(first.metadata_id()), "MemoryAllocation");
  EXPECT_EQ(cpu.event_name(second.metadata_id()), "MemoryDeallocation");  // renumbered clash
  EXPECT_EQ(cap->hostnames(), std::vector<std::string>{"host-a"});

  ASSERT_EQ(cap->allocators().size(), 1u);
  EXPECT_EQ(cap->allocators()[0].name, "GPU_9_bfc");
  EXPECT_EQ(cap->allocators()[0].allocations, 1);
  EXPECT_EQ(cap->allocators()[0].deallocations, 1);
  EXPECT_EQ(cap->allocators()[0].max_bytes_in_use, 100);
  ASSERT_EQ(cap->memory_events().size(), 2u);
  EXPECT_EQ(cap->memory_events()[0].kind, MemoryEventKind::Allocation);
  EXPECT_EQ(cap->memory_events()[1].bytes_in_use, 0);

  // The second event's stat ids mean other names in its own plane entry.
  const auto stats = cap->event_stats(cpu, second);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "bytes_allocated");
  EXPECT_EQ(stats[0].value.as_double(), 0.0);
  EXPECT_EQ(stats[1].name, "allocator_name");
  EXPECT_EQ(stats[1].value.as_string(), "GPU_9_bfc");
  const auto first_stats = cap->event_stats(cpu, first);
  ASSERT_EQ(first_stats.size(), 2u);
  EXPECT_EQ(first_stats[0].value.as_string(), "GPU_9_bfc");  // ref_value resolved
  EXPECT_EQ(first_stats[1].value.as_int(), 100);
}

TEST(ReaderBehaviour, TablesAreSortedByTime) {
  auto cap = read_capture(kData + "/tf2_gpu_v100x8_bert_multiworker.xplane.pb");
  auto by_time = [](const auto& a, const auto& b) { return a.time_ps < b.time_ps; };
  EXPECT_TRUE(std::is_sorted(cap->memory_events().begin(), cap->memory_events().end(), by_time));
  for (const Plane& p : cap->planes())
    for (const Line& l : p.lines)
      EXPECT_TRUE(std::is_sorted(
          l.events.begin(), l.events.end(),
          [](const EventRecord& a, const EventRecord& b) { return a.start_ps() < b.start_ps(); }));
  const auto& ev = cap->memory_events().front();
  EXPECT_EQ(cap->strings()[0], "");
  EXPECT_LT(ev.allocator, cap->allocators().size());
}

TEST(ReaderBehaviour, EventStatsDecodeOnDemand) {
  auto cap = read_capture(kData + "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");
  const Plane* gpu1 = cap->find_plane("/device:GPU:1");
  ASSERT_NE(gpu1, nullptr);
  const auto stats = cap->event_stats(*gpu1, gpu1->lines.at(0).events.at(0));
  auto find = [&](std::string_view n) {
    return std::find_if(stats.begin(), stats.end(), [&](const Stat& s) { return s.name == n; });
  };
  ASSERT_NE(find("hlo_module"), stats.end());
  EXPECT_EQ(find("hlo_module")->value.as_string(), "jit_forward_3d_conv");
  EXPECT_EQ(find("program_id")->value.as_uint(), 15u);
  ASSERT_TRUE(cap->profile_start_time_ns());
  EXPECT_EQ(*cap->profile_start_time_ns(), 1771595639214724894);
  // Every device event tagged with a program names a module of the plan.
  for (const auto& d : cap->device_program_events()) {
    EXPECT_NE(cap->find_module(std::to_string(d.program_id)), nullptr);
  }
  // XLA GPU module spans get the program id of the one module with their name.
  for (const auto& s : cap->executions()) {
    if (s.kind != ExecutionKind::XlaModule) continue;
    EXPECT_EQ(s.program_id, std::optional<std::uint64_t>(15));
  }
}

TEST(ReaderBehaviour, TpuModulesAllocatorsAndDeviceSpans) {
  auto cap = read_capture(kData + "/jax_tpu_v6e_inference.xplane.pb");
  const Module* f = cap->find_module("jit_f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->program_id, 12190760917235803885ull);  // above INT64_MAX: kept unsigned
  EXPECT_EQ(cap->find_module("12190760917235803885"), f);
  EXPECT_EQ(cap->find_module("jit_f(12190760917235803885)"), f);
  EXPECT_EQ(cap->allocators().at(0).name, "TPU_0");
  std::size_t device_spans = 0;
  for (const auto& s : cap->executions()) {
    if (s.kind != ExecutionKind::DeviceModule) continue;
    ++device_spans;
    ASSERT_TRUE(s.program_id);
    EXPECT_NE(cap->find_module(std::to_string(*s.program_id)), nullptr) << s.name;
  }
  EXPECT_EQ(device_spans, 414u);
}

TEST(ReaderBehaviour, SidecarEqualsTheMetadataCopy) {
  const Module side = read_hlo_proto_file(kData + "/jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb");
  auto cap = read_capture(kData + "/jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb");
  const Module* meta = cap->find_module("jit_forward_3d_conv(15)");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(side.name, "jit_forward_3d_conv");
  EXPECT_EQ(side.program_id, 15u);
  EXPECT_EQ(side.hlo_bytes, 3633u);
  EXPECT_EQ(meta->hlo_bytes, side.hlo_bytes);
  EXPECT_EQ(meta->hlo->SerializeAsString(), side.hlo->SerializeAsString());
  const auto& a = side.totals;
  const auto& b = meta->totals;
  EXPECT_EQ(a.parameters_bytes, b.parameters_bytes);
  EXPECT_EQ(a.outputs_bytes, b.outputs_bytes);
  EXPECT_EQ(a.temp_bytes, b.temp_bytes);
  EXPECT_EQ(a.total_allocation_bytes, b.total_allocation_bytes);
  EXPECT_EQ(a.allocation_count, 4);  // tests/data/README.md: 4 buffer allocations, 1 heap-simulator trace
  EXPECT_EQ(a.heap_trace_count, 1);
  EXPECT_EQ(side.hlo->buffer_assignment().logical_buffers_size(), 8);
}

class CountingProgress final : public oomscope::ProgressSink {
 public:
  void report(double fraction, std::string_view) override {
    EXPECT_GE(fraction, last);
    EXPECT_LE(fraction, 1.0);
    last = fraction;
    ++calls;
  }
  double last = 0.0;
  int calls = 0;
};

TEST(ReaderBehaviour, ProgressRisesToOne) {
  CountingProgress progress;
  read_capture(kData + "/jax_tpu_v6e_inference.xplane.pb", progress);
  EXPECT_GT(progress.calls, 2);
  EXPECT_EQ(progress.last, 1.0);
}

TEST(ReaderBehaviour, StopTokenCancels) {
  std::stop_source source;
  source.request_stop();
  CountingProgress progress;
  EXPECT_THROW(
      read_capture(kData + "/tf2_gpu_v100x8_bert_multiworker.xplane.pb", progress, source.get_token()),
      oomscope::Cancelled);
}

// Cancelling while the scan runs (from the progress callback, as a GUI's cancel button would).
class CancelOnFirstReport final : public oomscope::ProgressSink {
 public:
  explicit CancelOnFirstReport(std::stop_source& s) : source(s) {}
  void report(double fraction, std::string_view) override {
    if (fraction > 0.0) source.request_stop();
  }
  std::stop_source& source;
};

TEST(ReaderBehaviour, StopRequestedDuringTheScanCancels) {
  std::stop_source source;
  CancelOnFirstReport progress(source);
  EXPECT_THROW(
      read_capture(kData + "/tf2_gpu_v100x8_bert_multiworker.xplane.pb", progress, source.get_token()),
      oomscope::Cancelled);
}

}  // namespace
