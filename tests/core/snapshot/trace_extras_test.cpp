// The newer parts of the snapshot format on hand-built snapshots (no real file carries them; the one real
// compile_context, decomfl's 'N/A' on every entry, is checked too): compile_context, user_metadata and
// 'annotate' entries, forward_frames, FX frames, expandable segments with segment_map / segment_unmap,
// the oom entry's device_free, host_segments / host_traces, external_annotations cutting the trace.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/snapshot/snapshot_reader.h"
#include "core/snapshot/snapshot_text.h"

namespace oomscope::snapshot {
namespace {

constexpr std::int64_t MiB = 1 << 20;

std::shared_ptr<const Snapshot> read_json(const std::string& json) {
  NullProgress none;
  return read_snapshot_from_memory(json, "hand.json", none);
}

std::string entry(const char* action, std::int64_t addr, std::int64_t size, std::int64_t t,
                  const std::string& more = "") {
  return "{\"action\": \"" + std::string(action) + "\", \"addr\": " + std::to_string(addr) +
         ", \"size\": " + std::to_string(size) + ", \"stream\": 0, \"time_us\": " + std::to_string(t) + more +
         "}";
}

const std::string kFwd = R"([{"filename": "/w/model.py", "line": 12, "name": "forward"}])";
const std::string kFx =
    R"([{"filename": "/tmp/torchinductor/fx.py", "line": 3, "name": "forward", "fx_node_op": "call_function",)"
    R"( "fx_node_name": "linear", "fx_original_trace": "File \"/w/train.py\", line 5, in main\nFile \"/w/model.py\", line 30, in forward"}])";

TEST(TraceExtras, ContextOfAnAllocationIsShownWithIt) {
  const std::string json =
      "{\"segments\": [], \"device_traces\": [[" +
      entry("alloc", 4096, 64 * MiB, 1, ", \"compile_context\": \"N/A\", \"frames\": []") + ", " +
      entry("alloc", 1 << 30, 256 * MiB, 2,
            ", \"compile_context\": \"[0/1] torch-compiled region: model.forward\", \"user_metadata\": "
            "\"step=3\", \"frames\": " +
                kFx) +
      ", " + entry("annotate", 1 << 30, 0, 3, ", \"user_metadata\": \"saved for backward\"") + ", " +
      entry("alloc", 2ll << 30, 32 * MiB, 4, ", \"forward_frames\": " + kFwd + ", \"frames\": []") + "]]}";
  const auto snap = read_json(json);
  ASSERT_EQ(snap->device_traces.at(0).size(), 4u);
  EXPECT_EQ(snap->device_traces[0][2].action, Action::Annotate);
  EXPECT_EQ(snap->compile_context_entries, 2u);
  const SnapshotReport r = analyse_snapshot(*snap);
  EXPECT_EQ(r.recording.compiled_entries, 1u);
  EXPECT_EQ(r.recording.user_metadata_entries, 2u);
  EXPECT_EQ(r.recording.annotate_entries, 1u);
  EXPECT_EQ(r.recording.forward_frames_entries, 1u);
  EXPECT_EQ(r.recording.fx_frames, 1u);
  const DeviceAnalysis& d = r.devices.at(0);
  ASSERT_EQ(d.at_peak.size(), 3u);
  const EntryContext& big = d.at_peak[0].context;  // the 256 MiB allocation
  EXPECT_EQ(big.compile_context, "[0/1] torch-compiled region: model.forward");
  EXPECT_EQ(big.user_metadata, "step=3");
  ASSERT_EQ(big.annotations.size(), 1u);
  EXPECT_EQ(big.annotations[0], "saved for backward");
  EXPECT_NE(big.fx.find("FX call_function 'linear' traced from File \"/w/model.py\", line 30"),
            std::string::npos)
      << big.fx;
  EXPECT_TRUE(d.at_peak[1].context.empty());  // 64 MiB: 'N/A' is no compiled region
  EXPECT_EQ(d.at_peak[2].context.forward_where, "/w/model.py:12 in forward");
  std::ostringstream text;
  write_snapshot_text(text, *snap, r, 10);
  EXPECT_NE(text.str().find("compile_context: 2 trace entries carry it, 1 inside a torch.compile region"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("forward pass at /w/model.py:12 in forward"), std::string::npos);
}

TEST(TraceExtras, RealCompileContextIsAllNotApplicable) {
  const auto snap =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_decomfl_windows_with_trace.pickle");
  EXPECT_EQ(snap->compile_context_entries, 23105u);  // every entry (SOURCES.md)
  EXPECT_TRUE(snap->entry_extras.empty());
}

TEST(TraceExtras, ExpandableSegmentMapAndUnmapAndOomDeviceFree) {
  // One expandable segment of 40 MiB at the snapshot; the trace mapped 20 MiB, then 20 MiB more, unmapped
  // nothing, then an oom entry with device_free.
  const std::int64_t base = 0x7f0000000000;
  const std::string json =
      "{\"segments\": [{\"device\": 0, \"address\": " + std::to_string(base) +
      ", \"total_size\": " + std::to_string(40 * MiB) + ", \"allocated_size\": " + std::to_string(30 * MiB) +
      ", \"active_size\": " + std::to_string(30 * MiB) +
      ", \"requested_size\": 0, \"stream\": 0, \"segment_type\": \"large\", \"segment_pool_id\": [0, 0], "
      "\"is_expandable\": true, \"frames\": [], \"blocks\": [{\"address\": " +
      std::to_string(base) + ", \"size\": " + std::to_string(30 * MiB) +
      ", \"requested_size\": " + std::to_string(30 * MiB) +
      ", \"state\": \"active_allocated\", \"frames\": []}, {\"address\": " + std::to_string(base + 30 * MiB) +
      ", \"size\": " + std::to_string(10 * MiB) +
      ", \"requested_size\": 0, \"state\": \"inactive\", \"frames\": []}]}], \"device_traces\": [[" +
      entry("segment_map", base, 20 * MiB, 1) + ", " + entry("alloc", base, 10 * MiB, 2) + ", " +
      entry("segment_map", base + 20 * MiB, 20 * MiB, 3) + ", " +
      entry("alloc", base + 10 * MiB, 20 * MiB, 4) +
      ", {\"action\": \"oom\", \"device_free\": 12345678, \"size\": 62914560, \"stream\": 0, \"time_us\": "
      "5}]], "
      "\"allocator_settings\": {\"expandable_segments\": true}}";
  const auto snap = read_json(json);
  EXPECT_TRUE(snap->expandable_segments);
  EXPECT_TRUE(snap->segments.at(0).is_expandable);
  const SnapshotReport r = analyse_snapshot(*snap);
  const DeviceAnalysis& d = r.devices.at(0);
  ASSERT_TRUE(d.oom.has_value());
  EXPECT_EQ(d.oom->device_free, 12345678);
  EXPECT_EQ(d.oom->requested, 62914560);
  EXPECT_EQ(d.segment_events, 2u);
  EXPECT_EQ(r.recording.expandable_segments, 1u);
  EXPECT_EQ(allocator_state_at(*snap, 0, 1).reserved, 20 * MiB);  // after the first map
  EXPECT_EQ(allocator_state_at(*snap, 0, 3).reserved, 40 * MiB);
  EXPECT_EQ(allocator_state_at(*snap, 0, -1).reserved, 0);
  EXPECT_TRUE(d.pools.at(0).expandable_segments == 1u);
}

TEST(TraceExtras, HostSegmentsAndTracesAreCounted) {
  const std::string json =
      R"({"segments": [], "device_traces": [[]], "host_segments": [)"
      R"({"address": 1, "total_size": 4194304, "allocated_size": 1048576, "blocks": [)"
      R"({"size": 1048576, "state": "active_allocated"}, {"size": 3145728, "state": "inactive"}]},)"
      R"( {"address": 9, "total_size": 2097152, "allocated_size": 0, "blocks": []}, 7],)"
      R"( "host_traces": [{"action": "alloc", "addr": 1, "size": 1048576}, {"action": "free_requested",)"
      R"( "addr": 1, "size": 1048576}]})";
  const auto snap = read_json(json);
  EXPECT_TRUE(snap->host.present);
  EXPECT_EQ(snap->host.segments, 2u);
  EXPECT_EQ(snap->host.reserved, 6291456);
  EXPECT_EQ(snap->host.allocated, 1048576);
  EXPECT_EQ(snap->host.blocks, 2u);
  EXPECT_EQ(snap->host.active_blocks, 1u);
  EXPECT_EQ(snap->host.trace_entries, 2u);
  EXPECT_EQ(snap->host.unreadable, 1u);  // the 7
  std::ostringstream text;
  write_snapshot_text(text, *snap, analyse_snapshot(*snap), 5);
  EXPECT_NE(text.str().find("pinned host memory (host_segments): 2 segments, reserved 6.00 MiB"),
            std::string::npos)
      << text.str();
}

TEST(TraceExtras, ExternalAnnotationsCutTheTraceByStepAndStage) {
  // Step 1 (t 100..200) allocates 10 MiB and frees it; step 2 (t 300..500) holds 30 MiB at its peak,
  // inside its optimizer step (t 400..450).
  const std::string json =
      "{\"segments\": [], \"device_traces\": [[" + entry("alloc", 4096, 10 * MiB, 110) + ", " +
      entry("free_completed", 4096, 10 * MiB, 150) + ", " + entry("alloc", 8192, 20 * MiB, 310) + ", " +
      entry("alloc", 1 << 30, 10 * MiB, 410) + ", " + entry("free_completed", 1 << 30, 10 * MiB, 440) + ", " +
      entry("free_completed", 8192, 20 * MiB, 490) +
      "]], \"external_annotations\": ["
      R"({"device": 0, "time_us": 100, "name": "ProfilerStep#1", "stage": "START"},)"
      R"({"device": 0, "time_us": 200, "name": "ProfilerStep#1", "stage": "END"},)"
      R"({"device": 0, "time_us": 300, "name": "ProfilerStep#2", "stage": "START"},)"
      R"({"device": 0, "time_us": 400, "name": "Optimizer.step#AdamW.step", "stage": "START"},)"
      R"({"device": 0, "time_us": 450, "name": "Optimizer.step#AdamW.step", "stage": "END"},)"
      R"({"device": 0, "time_us": 500, "name": "ProfilerStep#2", "stage": "END"},)"
      R"({"device": 0, "time_us": 600, "name": "ProfilerStep#0", "stage": "END"}]})";
  const auto snap = read_json(json);
  const SnapshotReport r = analyse_snapshot(*snap);
  const DeviceAnalysis& d = r.devices.at(0);
  const AnnotationWindows& w = d.windows;
  ASSERT_EQ(w.windows.size(), 3u);
  EXPECT_EQ(w.unpaired_ends, 1u);
  EXPECT_EQ(w.windows[0].name, "ProfilerStep#1");
  EXPECT_EQ(w.windows[0].kind, WindowKind::Step);
  EXPECT_EQ(w.windows[0].first_index, 0);
  EXPECT_EQ(w.windows[0].last_index, 1);
  EXPECT_EQ(w.windows[0].peak_bytes, 10 * MiB);
  EXPECT_EQ(w.windows[1].name, "ProfilerStep#2");
  EXPECT_EQ(w.windows[1].peak_bytes, 30 * MiB);
  EXPECT_EQ(w.windows[1].peak_index, 3);
  EXPECT_EQ(w.windows[2].kind, WindowKind::Optimizer);
  EXPECT_EQ(w.windows[2].first_index, 3);
  EXPECT_EQ(w.windows[2].last_index, 4);
  EXPECT_EQ(d.timeline.peak_index, 3);
  std::ostringstream text;
  write_snapshot_text(text, *snap, r, 10);
  EXPECT_NE(text.str().find("falls inside ProfilerStep#2 > Optimizer.step#AdamW.step"), std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace oomscope::snapshot
