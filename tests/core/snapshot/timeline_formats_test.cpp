// Kineto traces, the HTA raw memory timeline and the JAX pprof profile against docs/snapshot-format.md
// section 5 and tests/data/README.md; recognising every format by content.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/hta_raw.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/pprof_profile.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {
namespace {

std::string data(const char* name) { return std::string(OOMSCOPE_TEST_DATA) + "/" + name; }

const KinetoDevice* find(const KinetoTrace& t, int type, std::int64_t id) {
  for (const KinetoDevice& d : t.devices)
    if (d.device_type == type && d.device_id == id) return &d;
  return nullptr;
}

TEST(Kineto, H100QwenNewSchema) {
  NullProgress none;
  const auto t = read_kineto_trace(data("kineto_h100_qwen1.5_0.5b_inference_profile_memory.json.gz"), none);
  EXPECT_EQ(t->events, 18221u);
  EXPECT_EQ(t->memory_events, 2450u);
  EXPECT_FALSE(t->old_schema);
  const KinetoDevice* cuda = find(*t, 1, 0);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->allocs, 1125u);
  EXPECT_EQ(cuda->frees, 1125u);
  EXPECT_EQ(cuda->running_peak, 1103766016);
  ASSERT_TRUE(cuda->baseline);
  EXPECT_EQ(*cuda->baseline, 984742400);
  EXPECT_EQ(cuda->max_total_allocated, 2088508416);
  EXPECT_EQ(cuda->peak_live, 2088508416);
  EXPECT_EQ(cuda->max_total_reserved, 2629828608);
  EXPECT_EQ(cuda->min_total_reserved, 2629828608);
  EXPECT_EQ(cuda->largest_alloc, 50372608);
  EXPECT_EQ(cuda->totals_mismatches, 0u);
  EXPECT_EQ(cuda->unmatched_frees, 0u);
  EXPECT_EQ(cuda->never_freed, 0u);
  // Relative float ts + baseTimeNanoseconds.
  EXPECT_NEAR(cuda->first_ts_us, 1751410836000000.0 + 1428625746340.715, 1.0);
  const KinetoDevice* cpu = find(*t, 0, -1);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->allocs, 100u);
}

TEST(Kineto, Resnet2021OldSchema) {
  NullProgress none;
  const auto t = read_kineto_trace(data("kineto_resnet50_v100_profile_memory_2021.pt.trace.json.gz"), none);
  EXPECT_EQ(t->events, 75718u);
  EXPECT_EQ(t->memory_events, 12838u);
  EXPECT_TRUE(t->old_schema);
  const KinetoDevice* cuda = find(*t, 1, 0);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->allocs + cuda->frees, 8220u);
  EXPECT_EQ(cuda->net, 0);
  EXPECT_EQ(cuda->running_peak, 2791636480);
  EXPECT_FALSE(cuda->baseline);
  EXPECT_EQ(cuda->largest_alloc, 116195328);
  const KinetoDevice* cpu = find(*t, 0, -1);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->allocs + cpu->frees, 4618u);
  EXPECT_EQ(cpu->net, 19267840);
  EXPECT_EQ(cpu->running_peak, 57803264);
}

TEST(Kineto, DdpRank1) {
  NullProgress none;
  const auto t = read_kineto_trace(data("kineto_ddp_v100_rank1_profile_memory.json.gz"), none);
  const KinetoDevice* cuda = find(*t, 1, 1);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->allocs, 13385u);
  EXPECT_EQ(cuda->running_peak, 2532893696);
  EXPECT_EQ(*cuda->baseline, 4096614400);
  EXPECT_EQ(cuda->peak_live, 6629508096);
  EXPECT_EQ(cuda->max_total_reserved, 12782141440);
  EXPECT_EQ(cuda->totals_mismatches, 0u);  // holds only after the stable sort by ts
}

TEST(Kineto, OutOfMemoryMarkers) {
  const std::string text = R"({"traceEvents": [
    {"ph": "i", "name": "[memory]", "ts": 10, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1024, "Addr": 5, "Total Allocated": 3072, "Total Reserved": 4096}},
    {"ph": "i", "name": "[OutOfMemory]", "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 8192, "Total Allocated": 3072, "Total Reserved": 4096}},
    {"ph": "X", "name": "aten::add", "ts": 11, "dur": 1}]})";
  const auto t = read_kineto_trace_from_text(text, "<oom>");
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->events, 3u);
  EXPECT_EQ(t->oom_events, 1u);
  ASSERT_EQ(t->devices[0].ooms.size(), 1u);
  EXPECT_EQ(t->devices[0].ooms[0].requested, 8192);
  EXPECT_EQ(*t->devices[0].baseline, 2048);
  EXPECT_THROW(read_kineto_trace_from_text("{\"traceEvents\": [", "<cut>"), Error);
}

// A number too large for a double makes nlohmann throw out_of_range, not parse_error: it must still be the
// reader's "not valid JSON" error naming the file, not an exception escaping the reader.
TEST(JsonReaders, ANumberTooLargeForADoubleIsAnErrorNamingTheFile) {
  try {
    read_kineto_trace_from_text(R"({"traceEvents": [{"ph": "i", "ts": 1e999}]})", "huge.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "huge.json");
    EXPECT_NE(e.message().find("not valid JSON"), std::string::npos) << e.message();
  }
  try {
    read_hta_raw_from_text("[[1, 1, 1e999, 0]]", "huge.raw.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "huge.raw.json");
    EXPECT_NE(e.message().find("not valid JSON"), std::string::npos) << e.message();
  }
  NullProgress none;
  EXPECT_THROW(read_snapshot_from_memory(R"({"segments": [1e999]})", "huge.pickle.json", none), Error);
}

TEST(HtaRaw, Section5_3Figures) {
  const auto t = read_hta_raw(data("torch_memory_timeline_raw_hta.raw.gz"));
  EXPECT_EQ(t->rows, 16845u);
  EXPECT_EQ(t->action_rows[1], 645u);
  EXPECT_EQ(t->action_rows[2], 3345u);
  EXPECT_EQ(t->action_rows[3], 9510u);
  EXPECT_EQ(t->action_rows[4], 3345u);
  EXPECT_EQ(t->preexisting_bytes, 332060904);
  EXPECT_EQ(t->final_bytes, 332060904);
  EXPECT_EQ(t->peak_bytes, 3082832104);
  EXPECT_EQ(t->peak_t_ns, 1696966047194486198);
  EXPECT_EQ(t->last_t_ns - t->first_t_ns, 987186231);
  const std::int64_t peaks[8] = {102440608,  102228128, 19395584,  129024,
                                 2746497024, 107868160, 256901120, 168297384};
  const std::int64_t finals[8] = {102440608, 102228128, 19395584, 0, 128000, 107868160, 0, 424};
  for (std::size_t c = 0; c < 8; ++c) {
    EXPECT_EQ(t->category_peak[c], peaks[c]) << hta_category_name(static_cast<int>(c));
    EXPECT_EQ(t->category_final[c], finals[c]) << hta_category_name(static_cast<int>(c));
  }
}

TEST(Pprof, JaxDeviceMemoryProfile) {
  const auto p = read_pprof(data("jax_device_memory_profile_cuda_microjax.prof"));
  EXPECT_TRUE(p->gzip);
  EXPECT_EQ(p->samples.size(), 87u);
  EXPECT_EQ(p->total_bytes(), 1055160);
  ASSERT_EQ(p->sample_types.size(), 2u);
  EXPECT_EQ(p->sample_types[0].first, "allocations");
  EXPECT_EQ(p->sample_types[1].second, "bytes");
  std::size_t buffers = 0, executables = 0;
  for (const PprofSample& s : p->samples) {
    buffers += s.kind == "buffer";
    executables += s.kind == "executable";
    if (s.kind == "buffer") {
      EXPECT_EQ(s.device, "cuda:0");
    }
  }
  EXPECT_EQ(buffers, 4u);
  EXPECT_EQ(executables, 83u);
  std::int64_t sum = 0;
  for (const PprofGroup& g : p->by_line()) sum += g.bytes;
  EXPECT_EQ(sum, 1055160);
}

TEST(FileKind, EveryFormatByContent) {
  EXPECT_EQ(detect_file_kind(data("torch_snapshot_cs336_small_peak.pickle")).kind, FileKind::TorchSnapshot);
  EXPECT_EQ(detect_file_kind(data("torch2.0_snapshot_flexgen_oom.pickle")).kind, FileKind::TorchSnapshot);
  EXPECT_EQ(detect_file_kind(data("kineto_h100_qwen1.5_0.5b_inference_profile_memory.json.gz")).kind,
            FileKind::ChromeTrace);
  EXPECT_EQ(detect_file_kind(data("kineto_resnet50_v100_profile_memory_2021.pt.trace.json.gz")).kind,
            FileKind::ChromeTrace);
  EXPECT_EQ(detect_file_kind(data("torch_memory_timeline_raw_hta.raw.gz")).kind, FileKind::HtaRawTimeline);
  EXPECT_EQ(detect_file_kind(data("jax_device_memory_profile_cuda_microjax.prof")).kind, FileKind::Pprof);
  EXPECT_EQ(detect_file_kind(data("jax0.8_rocm_mi300x_gemm.xplane.pb")).kind, FileKind::XSpace);
  EXPECT_EQ(detect_file_kind(data("tf2_gpu_v100x8_bert_multiworker.xplane.pb")).kind, FileKind::XSpace);
  EXPECT_EQ(detect_file_kind(data("jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb")).kind,
            FileKind::XSpace);
  EXPECT_EQ(detect_kind_of_bytes("PK\x03\x04 rest", true).kind, FileKind::Unknown);
  EXPECT_NE(detect_kind_of_bytes("PK\x03\x04 rest", true).looks_like.find("ZIP"), std::string::npos);
  EXPECT_NE(detect_kind_of_bytes("<!DOCTYPE html><html>", true).looks_like.find("HTML"), std::string::npos);
  EXPECT_NE(detect_kind_of_bytes("hello world, plain text", true).looks_like.find("text starting 'hello"),
            std::string::npos);
  EXPECT_EQ(detect_kind_of_bytes("hello world, plain text", true).kind, FileKind::Log);  // a log candidate
  EXPECT_EQ(detect_kind_of_bytes("[rank1]: Traceback (most recent call last):\n", true).kind, FileKind::Log);
  EXPECT_EQ(detect_kind_of_bytes("[2024-01-01 10:00:00] INFO start\n", true).kind, FileKind::Log);
  EXPECT_EQ(detect_kind_of_bytes("\x1b[31mRuntimeError\x1b[0m: CUDA out of memory.\n", true).kind,
            FileKind::Log);
  // UTF-8 text is text; bytes of no UTF-8 sequence are not (a damaged capture with a little ASCII in it goes
  // to the capture reader, which says where it breaks), but one stray byte in a long log does not make it
  // binary.
  EXPECT_EQ(detect_kind_of_bytes("GPU 0 \xe2\x80\x94 7.79 GiB, \xc3\xa9t\xc3\xa9\n", true).kind,
            FileKind::Log);
  EXPECT_EQ(detect_kind_of_bytes("\xff\xff\xff\xff not a capture", true).kind, FileKind::XSpace);
  EXPECT_EQ(detect_kind_of_bytes(std::string(200, 'a') + "\xff" + std::string(200, 'b'), true).kind,
            FileKind::Log);
  EXPECT_NE(
      detect_kind_of_bytes("{\"memoryProfilePerAllocator\": {}}", true).looks_like.find("memory_profile"),
      std::string::npos);
  EXPECT_EQ(detect_kind_of_bytes("[{\"ph\": \"X\", \"ts\": 1}]", true).kind, FileKind::ChromeTrace);
  EXPECT_EQ(detect_kind_of_bytes("[[-1, 1, 4096, 0], [5, 2, 8, 3]]", true).kind, FileKind::HtaRawTimeline);
}

}  // namespace
}  // namespace oomscope::snapshot
