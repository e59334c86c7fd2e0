// The diagnosis rules on the shared logs: each fires where its figures say so, with the derived figures
// it quotes, and stays silent where they do not.

#include <gtest/gtest.h>

#include <sstream>

#include "core/log/log_diagnosis.h"
#include "core/log/log_text.h"

namespace oomscope::log {
namespace {

struct Read {
  LogFile log;
  LogDiagnosis d;
};

Read diagnose(const std::string& name) {
  NullProgress none;
  Read r;
  r.log = read_log(std::string(OOMSCOPE_TEST_DATA) + "/logs/" + name, none);
  r.d = diagnose_log(r.log);
  return r;
}

const analysis::DiagnosisLine* rule(const MessageDiagnosis& d, std::string_view id) {
  for (const analysis::DiagnosisLine& l : d.lines)
    if (l.rule == id) return &l;
  return nullptr;
}

std::int64_t derived(const MessageDiagnosis& d, std::string_view key) {
  for (const DerivedFigure& f : d.derived)
    if (f.key == key) return f.bytes;
  return -1;
}

constexpr std::int64_t GiB(double x) { return static_cast<std::int64_t>(x * (1LL << 30) + 0.5); }
constexpr std::int64_t MiB(double x) { return static_cast<std::int64_t>(x * (1LL << 20) + 0.5); }

TEST(LogDiagnosis, RequestLargerThanTheDevice) {
  const Read r = diagnose("torch-cuda_NeuroLens_2.log");  // 55.57 GiB on a 12.00 GiB GPU
  ASSERT_EQ(r.d.messages.size(), 1u);
  const auto* l = rule(r.d.messages[0], "request-exceeds-device");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->finding.find("55.57 GiB"), std::string::npos);
  EXPECT_EQ(rule(r.d.messages[0], "fragmentation"), nullptr);  // no setting can help
  // The request of a 1.x message that is slightly over the device.
  EXPECT_NE(rule(diagnose("torch-cuda_pytorch_37250.log").d.messages[0], "request-exceeds-device"), nullptr);
}

TEST(LogDiagnosis, FragmentationWhenReservedButUnallocatedCoversTheRequest) {
  const Read r = diagnose("torch-cuda_VSmTrans_3.log");  // 336.73 MiB unallocated, 226.00 MiB asked
  const auto* l = rule(r.d.messages[0], "fragmentation");
  ASSERT_NE(l, nullptr);
  ASSERT_FALSE(l->fixes.empty());
  EXPECT_NE(l->fixes[0].action.find("expandable_segments:True"), std::string::npos);
  ASSERT_TRUE(l->fixes[0].saving_bytes);
  EXPECT_EQ(*l->fixes[0].saving_bytes, MiB(336.73));
  // This process's memory outside PyTorch: 15.48 - (14.81 + 0.33) GiB.
  EXPECT_EQ(derived(r.d.messages[0], "process_outside_pytorch"), GiB(15.48) - GiB(14.81) - MiB(336.73));
}

TEST(LogDiagnosis, DeviceFullWhenTheCacheIsSmall) {
  const Read r = diagnose("torch-hip_CosyVoice_1189.log");  // 4.96 GiB free, 5.48 GiB asked, 240 MiB cached
  EXPECT_NE(rule(r.d.messages[0], "device-full"), nullptr);
  EXPECT_EQ(rule(r.d.messages[0], "fragmentation"), nullptr);
}

TEST(LogDiagnosis, OtherProcessesHoldTheDevice) {
  const Read r = diagnose("handmade_torchrun_two_ranks_crlf.log");
  ASSERT_EQ(r.d.messages.size(), 2u);
  const auto* l = rule(r.d.messages[1], "other-processes");  // rank 1: process 4242 holds 10 GiB
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(derived(r.d.messages[1], "other_processes"), GiB(79.15) - MiB(20) - GiB(69.11));
  ASSERT_TRUE(l->fixes[0].fits_after);
  EXPECT_TRUE(*l->fixes[0].fits_after);
  EXPECT_EQ(rule(r.d.messages[0], "other-processes"), nullptr);  // rank 0: 20 MiB, under the threshold
  EXPECT_NE(rule(r.d.messages[0], "private-pools"), nullptr);
}

TEST(LogDiagnosis, AllocatedBeyondTheDeviceIsNotCalledFragmentation) {
  const Read r = diagnose("torch-cuda_RecDiff_4.log");  // 7.42 GiB allocated on a 4.00 GiB GPU
  EXPECT_NE(rule(r.d.messages[0], "allocated-exceeds-device"), nullptr);
  EXPECT_EQ(rule(r.d.messages[0], "fragmentation"), nullptr);
}

TEST(LogDiagnosis, MemoryFractionCap) {
  const Read r = diagnose("torch-hip_TheRock_2118.log");
  EXPECT_NE(rule(r.d.messages[0], "memory-fraction-cap"), nullptr);
}

TEST(LogDiagnosis, MpsLimit) {
  const Read r = diagnose("torch-mps_ComfyUI_8984.log");
  const auto* l = rule(r.d.messages[0], "mps-limit");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(derived(r.d.messages[0], "headroom"), GiB(18.13) - GiB(15.72) - MiB(2.41));
}

TEST(LogDiagnosis, XlaTempBlockAndBuffersBySourceAndRole) {
  const Read af = diagnose("xla-gpu_AFProfile_8.log");  // request 4770354232 B = the 4.44GiB temp block
  EXPECT_NE(rule(af.d.messages[0], "temp-block"), nullptr);
  const Read t5x = diagnose("xla-gpu_t5x_870.log");
  const auto* l = rule(t5x.d.messages[0], "peak-buffers");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->finding.find("jvp"), std::string::npos);  // two of the three buffers are under jvp(
  EXPECT_EQ(derived(t5x.d.messages[0], "listed_buffers"), MiB(96) * 3);
}

TEST(LogDiagnosis, TpuArgumentsProgramAndPadding) {
  EXPECT_NE(rule(diagnose("xla-tpu_EasyDeL_142.log").d.messages[0], "tpu-arguments"), nullptr);
  EXPECT_NE(rule(diagnose("xla-tpu_tensor2tensor_1382.log").d.messages[0], "tpu-program"), nullptr);
  const Read pad = diagnose("xla-tpu_pytorch-xla_3041.log");
  EXPECT_NE(rule(pad.d.messages[0], "tpu-padding"), nullptr);
  EXPECT_EQ(derived(pad.d.messages[0], "hlo_temp_padding"), GiB(1.67) - GiB(1.12));
  EXPECT_NE(rule(diagnose("xla-tpu_pytorch-xla_7942.log").d.messages[0], "tpu-vmem"), nullptr);
}

TEST(LogDiagnosis, BfcPoolWithoutItsRequestSaysSo) {
  const Read r = diagnose("bfc_DeepSpeech_1940.log");
  const auto* l = rule(r.d.messages[0], "bfc-pool");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->finding.find("cannot be told"), std::string::npos);
  EXPECT_EQ(rule(r.d.messages[0], "bfc-full"), nullptr);
  EXPECT_EQ(derived(r.d.messages[0], "pool_free"), 10925244416LL - 7613320960LL);
  const Read w = diagnose("bfc_thera_10.log");
  for (const MessageDiagnosis& d : w.d.messages) EXPECT_NE(rule(d, "not-a-failure"), nullptr);
}

TEST(LogDiagnosis, VllmKvCache) {
  const Read r = diagnose("other_vllm_10517.log");
  const auto* l = rule(r.d.messages[0], "kv-cache-too-small");
  ASSERT_NE(l, nullptr);
  ASSERT_FALSE(l->fixes.empty());
  EXPECT_EQ(l->fixes[0].action, "--max-model-len 23648 (or less)");
}

TEST(LogDiagnosis, NextStepsFollowTheKinds) {
  const Read torch = diagnose("torch-cuda_VSmTrans_3.log");
  ASSERT_EQ(torch.d.next_steps.size(), 1u);
  EXPECT_NE(torch.d.next_steps[0].find("_record_memory_history"), std::string::npos);
  const Read jax = diagnose("xla-gpu_jax_13428.log");
  ASSERT_EQ(jax.d.next_steps.size(), 1u);
  EXPECT_NE(jax.d.next_steps[0].find("jax.profiler.trace"), std::string::npos);
  EXPECT_TRUE(diagnose("bfc_thera_10.log").d.next_steps.empty());
}

TEST(LogDiagnosis, TextNamesEveryMessageAndTheFirst) {
  const Read r = diagnose("handmade_torchrun_two_ranks_crlf.log");
  std::ostringstream out;
  write_log_text(out, r.log, r.d);
  const std::string text = out.str();
  EXPECT_NE(text.find("sources: rank 0 (1), rank 1 (1)"), std::string::npos);
  EXPECT_NE(text.find("first out-of-memory message: 1 (line 4, rank 0)"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // the colour codes were taken off
  std::ostringstream info;
  write_log_info(info, r.log);
  EXPECT_NE(info.str().find("line 4"), std::string::npos);
  EXPECT_NE(info.str().find("pytorch-cuda"), std::string::npos);
}

}  // namespace
}  // namespace oomscope::log
