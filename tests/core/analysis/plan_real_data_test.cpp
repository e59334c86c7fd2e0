// Real captures: every module of every capture in tests/data, and the sidecar HloProto, checked against
// tests/data/tools/plan_peak.py, an independent replay in Python. The table below is what that script
// printed (/usr/bin/python3 tests/data/tools/plan_peak.py --json tests/data/*.pb: file, program_id, trace,
// heap_peak, peak_index, peak_instruction, indefinite_bytes, temp_bytes, peak, live ids); regenerate it
// the same way if the data changes, never from oomscope's own output.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/plan/plan.h"
#include "core/capture/reader.h"
#include "core/util/error.h"
#include "hlo.pb.h"

namespace oomscope::analysis {
namespace {

struct Pinned {
  const char* file;
  std::uint64_t program_id;
  int trace;  // -1: no usable trace
  std::int64_t heap_peak;
  std::int64_t peak_index;
  const char* peak_instruction;
  std::int64_t indefinite;
  std::int64_t temp;
  std::int64_t peak;
  std::vector<std::int64_t> live;  // heap buffers live at the peak (display ids), sorted by root id
};

// plan_peak.py --json, one row per module.
const std::vector<Pinned>& pinned() {
  static const std::vector<Pinned> rows = {
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 1ULL, -1, 0, -1, "", 8, 0, 8, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 3ULL, -1, 0, -1, "", 12, 0, 12, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 5ULL, -1, 0, -1, "", 32, 0, 32, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 7ULL, -1, 0, -1, "", 72, 0, 72, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
       9ULL,
       0,
       4,
       0,
       "loop_xor_fusion",
       51118088,
       4,
       51118092,
       {304}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 11ULL, -1, 0, -1, "", 655368, 0, 655368, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 13ULL, -1, 0, -1, "", 102236224, 0, 102236224, {}},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
       15ULL,
       0,
       579072000,
       2,
       "cudnn-conv.1",
       579072000,
       579072256,
       1158144000,
       {7, 9, 11}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 1ULL, -1, 0, -1, "", 8, 0, 8, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 3ULL, -1, 0, -1, "", 12, 0, 12, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 5ULL, -1, 0, -1, "", 24, 0, 24, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 7ULL, -1, 0, -1, "", 48, 0, 48, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb",
       9ULL,
       0,
       32852,
       6,
       "loop_multiply_fusion",
       134217736,
       34052,
       134250588,
       {297, 298, 299, 300, 302, 303, 304}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 11ULL, -1, 0, -1, "", 402653184, 0, 402653184, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 13ULL, -1, 0, -1, "", 268435456, 0, 268435456, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 15ULL, -1, 0, -1, "", 268435456, 0, 268435456, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 17ULL, -1, 0, -1, "", 402653184, 0, 402653184, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 19ULL, -1, 0, -1, "", 268435456, 0, 268435456, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb",
       21ULL,
       0,
       131072,
       0,
       "input_reduce_fusion",
       134283276,
       131072,
       134414348,
       {13}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 23ULL, -1, 0, -1, "", 134283292, 0, 134283292, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 26ULL, -1, 0, -1, "", 268500992, 0, 268500992, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 28ULL, -1, 0, -1, "", 131076, 0, 131076, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 30ULL, -1, 0, -1, "", 268500992, 0, 268500992, {}},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb",
       32ULL,
       0,
       32768,
       0,
       "input_reduce_fusion",
       134217742,
       32768,
       134250510,
       {12}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 1ULL, -1, 0, -1, "", 4, 0, 4, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 3ULL, -1, 0, -1, "", 131074, 0, 131074, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 5ULL, -1, 0, -1, "", 393216, 0, 393216, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 19ULL, -1, 0, -1, "", 2097154, 0, 2097154, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb",
       21ULL,
       0,
       4194304,
       0,
       "custom-call.1",
       6291456,
       4194560,
       10485760,
       {4}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 32ULL, -1, 0, -1, "", 33554434, 0, 33554434, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb",
       34ULL,
       0,
       67108864,
       0,
       "custom-call.1",
       100663296,
       67109120,
       167772160,
       {4}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 45ULL, -1, 0, -1, "", 67108866, 0, 67108866, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 47ULL, -1, 0, -1, "", 67108866, 0, 67108866, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb",
       49ULL,
       0,
       79691776,
       0,
       "custom-call.1",
       268435456,
       79692032,
       348127232,
       {4}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 60ULL, -1, 0, -1, "", 33554434, 0, 33554434, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 62ULL, -1, 0, -1, "", 33554434, 0, 33554434, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb",
       64ULL,
       0,
       67108864,
       0,
       "custom-call.1",
       75497472,
       67109120,
       142606336,
       {4}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 75ULL, -1, 0, -1, "", 33554434, 0, 33554434, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 77ULL, -1, 0, -1, "", 8388610, 0, 8388610, {}},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb",
       79ULL,
       0,
       41943040,
       0,
       "custom-call.1",
       176160768,
       41943296,
       218103808,
       {4}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 1ULL, -1, 0, -1, "", 8, 0, 8, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 3ULL, -1, 0, -1, "", 12, 0, 12, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
       5ULL,
       0,
       16568,
       7,
       "loop_multiply_fusion",
       50331656,
       17924,
       50348224,
       {310, 311, 312, 314, 315, 316, 317, 318}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 7ULL, -1, 0, -1, "", 12, 0, 12, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 9ULL, -1, 0, -1, "", 8, 0, 8, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 11ULL, -1, 0, -1, "", 20, 0, 20, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
       13ULL,
       0,
       16400,
       4,
       "loop_multiply_fusion",
       25165832,
       17156,
       25182232,
       {289, 290, 291, 293, 294}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 15ULL, -1, 0, -1, "", 16, 0, 16, {}},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
       17ULL,
       0,
       319291468,
       9,
       "loop_reduce_fusion",
       201326748,
       319293224,
       520618216,
       {101, 105, 106, 114, 115, 116, 119, 120}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 1ULL, -1, 0, -1, "", 8, 0, 8, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 3ULL, -1, 0, -1, "", 12, 0, 12, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 5ULL, -1, 0, -1, "", 32, 0, 32, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 7ULL, -1, 0, -1, "", 72, 0, 72, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
       9ULL,
       0,
       4,
       0,
       "loop_xor_fusion",
       51118088,
       4,
       51118092,
       {305}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 11ULL, -1, 0, -1, "", 655368, 0, 655368, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 13ULL, -1, 0, -1, "", 102236224, 64, 102236224, {}},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
       15ULL,
       0,
       579072000,
       2,
       "cudnn-conv.1.0",
       579072000,
       579072128,
       1158144000,
       {7, 9, 11}},
      {"jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb",
       15ULL,
       0,
       579072000,
       2,
       "cudnn-conv.1.0",
       579072000,
       579072128,
       1158144000,
       {7, 9, 11}},
      {"jax_tpu_v6e_inference.xplane.pb", 2433868464432466958ULL, -1, 0, -1, "", 1024, 0, 1024, {}},
      {"jax_tpu_v6e_inference.xplane.pb",
       9646411105960254074ULL,
       -1,
       0,
       -1,
       "",
       10737419776,
       0,
       10737419776,
       {}},
      {"jax_tpu_v6e_inference.xplane.pb",
       11287434908481120160ULL,
       -1,
       0,
       -1,
       "",
       5368709632,
       0,
       5368709632,
       {}},
      {"jax_tpu_v6e_inference.xplane.pb",
       12190760917235803885ULL,
       1,
       21474836480,
       3,
       "broadcast_add_fusion.2",
       32,
       21474934784,
       21474836512,
       {14, 16, 22, 30}},
  };
  return rows;
}

std::string data(const std::string& name) { return std::string(OOMSCOPE_TEST_DATA) + "/" + name; }

void expect_matches(const PlanAnalysis& a, const Pinned& p, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.selected_trace, p.trace);
  // No trace is only a gap when the module has temp memory to simulate.
  EXPECT_EQ(a.status, p.trace >= 0 || p.temp == 0 ? PlanStatus::Ok : PlanStatus::NoHeapTrace);
  EXPECT_EQ(a.temp_bytes, p.temp);
  EXPECT_EQ(a.heap_peak_bytes, p.heap_peak);
  EXPECT_EQ(a.peak_event_index, p.peak_index);
  EXPECT_EQ(a.peak_instruction, p.peak_instruction);
  EXPECT_EQ(a.indefinite_bytes, p.indefinite);
  EXPECT_EQ(a.peak_bytes, p.peak);
  std::vector<std::int64_t> heap_ids;
  std::map<std::int64_t, std::int64_t> by_root;
  for (const auto& b : a.live_at_peak) {
    if (b.indefinite) continue;
    by_root[b.canonical_buffer_id >= 0 ? b.canonical_buffer_id : b.logical_buffer_id] = b.logical_buffer_id;
  }
  for (const auto& [root, display] : by_root) heap_ids.push_back(display);
  EXPECT_EQ(heap_ids, p.live);
  std::int64_t sum = 0;
  for (const auto& r : a.role_totals) sum += r.bytes;
  EXPECT_EQ(sum, a.peak_bytes);
  if (!a.curve.heap_bytes.empty()) {
    EXPECT_EQ(*std::max_element(a.curve.heap_bytes.begin(), a.curve.heap_bytes.end()), a.heap_peak_bytes);
  }
}

TEST(PlanRealData, SidecarHloProtoMatchesTheIndependentReplay) {
  const std::string path = data("jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb");
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  xla::HloProto hlo;
  ASSERT_TRUE(hlo.ParseFromIstream(&in));
  const PlanAnalysis a = analyze_plan(hlo);
  const auto row = std::find_if(pinned().begin(), pinned().end(), [](const Pinned& p) {
    return std::string(p.file).ends_with(".hlo_proto.pb");
  });
  ASSERT_NE(row, pinned().end());
  expect_matches(a, *row, path);
  EXPECT_EQ(a.module_name, "jit_forward_3d_conv");
  EXPECT_EQ(a.program_id, 15u);

  // What the report shows for this module, read from the proto by hand.
  EXPECT_EQ(a.parameters_bytes, 6389760 + 655360);
  EXPECT_EQ(a.outputs_bytes, 572026880);
  EXPECT_EQ(a.temp_bytes, 579072128);
  EXPECT_EQ(a.donation.donated_bytes, 0);
  ASSERT_EQ(a.live_at_peak.size(), 6u);  // 3 indefinite + 3 heap
  const PlanBuffer& conv = a.live_at_peak.back();
  EXPECT_EQ(conv.logical_buffer_id, 11);
  EXPECT_EQ(conv.instruction, "cudnn-conv.1.0");
  EXPECT_EQ(conv.opcode, "custom-call");
  EXPECT_EQ(conv.shape_index, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(conv.size_bytes, 572026880);
  EXPECT_EQ(conv.source.to_string(), "/workspace/conv-jax/jax_conv_profiling.py:77");
  EXPECT_EQ(conv.role, BufferRole::Other);  // a forward-only jit: no jvp( in the name stack
  EXPECT_EQ(a.live_at_peak[0].role, BufferRole::Output);
  EXPECT_EQ(a.live_at_peak[1].role, BufferRole::Parameter);
  EXPECT_EQ(a.live_at_peak[1].parameter_number, 0);
}

TEST(PlanRealData, EveryModuleOfEveryCaptureMatchesTheIndependentReplay) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(OOMSCOPE_TEST_DATA))
    if (entry.path().extension() == ".pb" && entry.path().filename().string().ends_with(".xplane.pb"))
      files.insert(entry.path().filename().string());
  ASSERT_GE(files.size(), 7u);
  int modules_checked = 0;
  for (const std::string& file : files) {
    std::shared_ptr<const capture::Capture> cap;
    try {
      cap = capture::read_capture(data(file));
    } catch (const Error& e) {
      // Only the deliberately damaged file may fail; it must fail with an error naming it.
      EXPECT_TRUE(file.starts_with("CORRUPT_")) << e.what();
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos);
      continue;
    }
    std::vector<const Pinned*> expected;
    for (const auto& p : pinned())
      if (file == p.file) expected.push_back(&p);
    EXPECT_EQ(cap->modules().size(), expected.size()) << file;
    for (const capture::Module& module : cap->modules()) {
      const auto row = std::find_if(expected.begin(), expected.end(),
                                    [&](const Pinned* p) { return p->program_id == module.program_id; });
      if (row == expected.end()) {
        ADD_FAILURE() << file << ": module " << module.metadata_name << " not in the pinned table";
        continue;
      }
      const PlanAnalysis a = analyze_plan(module);
      expect_matches(a, **row, file + " " + module.metadata_name);
      // The reader's totals and ours follow the same category rules.
      EXPECT_EQ(a.parameters_bytes, module.totals.parameters_bytes) << module.metadata_name;
      EXPECT_EQ(a.outputs_bytes, module.totals.outputs_bytes) << module.metadata_name;
      EXPECT_EQ(a.temp_bytes, module.totals.temp_bytes) << module.metadata_name;
      EXPECT_EQ(a.total_allocation_bytes, module.totals.total_allocation_bytes) << module.metadata_name;
      ++modules_checked;
    }
  }
  EXPECT_EQ(modules_checked, static_cast<int>(pinned().size()) - 1);  // all but the sidecar row
}

TEST(PlanRealData, FusedAttentionLossDescribesItsPeakBuffers) {
  const auto cap = capture::read_capture(data("jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb"));
  const capture::Module* module = cap->find_module("jit_loss_fn(17)");
  ASSERT_NE(module, nullptr);
  const PlanAnalysis a = analyze_plan(*module);
  std::map<std::int64_t, const PlanBuffer*> by_id;
  for (const auto& b : a.live_at_peak)
    if (!b.indefinite) by_id[b.logical_buffer_id] = &b;
  // Shapes as plan_peak.py prints them.
  ASSERT_TRUE(by_id.count(119) && by_id.count(120) && by_id.count(114));
  EXPECT_EQ(by_id[119]->shape, "f32[2,4096,6144]");
  EXPECT_EQ(by_id[119]->instruction, "gemm_fusion_dot.3");
  EXPECT_EQ(by_id[120]->shape, "f32[2,2048,3,16,128]");
  EXPECT_EQ(by_id[114]->shape, "bf16[2,2048,16,128]");
  EXPECT_EQ(by_id[114]->instruction, "te_fused_attn_forward_ffi.15");
  // The backward starts at event 12 (gemm_fusion_dot.1, the first "transpose(" instruction; plan_phases.py).
  EXPECT_EQ(a.backward_start_event, 12);
  for (const auto& [id, b] : by_id) {
    // The role must be what the rule gives for the buffer's own (or inherited) name stack and lifetime.
    const std::string& stack = b->role_via_op_name.empty() ? b->op_name : b->role_via_op_name;
    if (b->role == BufferRole::Workspace) continue;
    const bool forward = stack.find("jvp(") != std::string::npos;
    const bool freed_in_forward = b->freed_at_event >= 0 && b->freed_at_event < a.backward_start_event;
    const BufferRole expected = stack.find("transpose(") != std::string::npos ? BufferRole::Backward
                                : forward && freed_in_forward                 ? BufferRole::ForwardTransient
                                : forward                                     ? BufferRole::ForwardKept
                                                                              : BufferRole::Other;
    EXPECT_EQ(b->role, expected) << id << " " << b->op_name;
  }
  // The example: the peak is the split-K GEMM's partials and their reduce, both forward transients
  // freed at events 10 and 11; the backward has its own 256 MiB heap peak at gemm_fusion_dot.6.
  EXPECT_EQ(by_id[119]->role, BufferRole::ForwardTransient);
  EXPECT_EQ(by_id[120]->role, BufferRole::ForwardTransient);
  EXPECT_EQ(by_id[114]->role, BufferRole::ForwardKept);
  EXPECT_EQ(a.peak_phase, Phase::Forward);
  const auto other = a.other_phase_peak();
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->phase, Phase::Backward);
  EXPECT_EQ(other->heap_bytes, 268435456);
  EXPECT_EQ(other->instruction, "gemm_fusion_dot.6");
  ASSERT_EQ(a.patterns.size(), 1u);
  EXPECT_EQ(a.patterns[0].kind, PatternKind::SplitKPartials);
  EXPECT_EQ(a.patterns[0].instruction, "gemm_fusion_dot.3");
  EXPECT_EQ(a.patterns[0].other_instruction, "loop_reduce_fusion");
  EXPECT_EQ(a.patterns[0].factor, 2);
  // Its outputs are the parameters' gradients: not a donation candidate.
  EXPECT_EQ(a.donation.donatable_bytes, 0);
  EXPECT_EQ(a.donation.gradient_matched_bytes, 100663296);
}

}  // namespace
}  // namespace oomscope::analysis
