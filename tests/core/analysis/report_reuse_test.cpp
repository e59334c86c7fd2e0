// ReportOptions::whole_capture: a re-scoped report that reuses the executions of the report without a time
// window is the same report, byte for byte as JSON, as one that builds them again; and a report of another
// file, or one that is itself re-scoped, is not reused.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/analysis/report/report.h"
#include "core/analysis/report/report_json.h"
#include "core/capture/reader.h"

namespace oomscope::analysis {
namespace {

const std::string kData = OOMSCOPE_TEST_DATA;

std::string json_of(const HostReport& r, const ReportOptions& options) {
  return report_json_text(std::span(&r, 1), options, {});
}

// Windows that cut the capture in different places: thirds of its time, each execution of the analysed
// module with a little margin, and a window that starts inside one execution and ends inside the next.
std::vector<std::pair<std::int64_t, std::int64_t>> windows_of(const HostReport& whole) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const auto ex = whole.runtime.all_executions();
  if (ex.empty()) return out;
  std::int64_t first = ex.front().start_ps, last = ex.front().end_ps;
  for (const RuntimeExecution& e : ex) last = std::max(last, e.end_ps);
  const std::int64_t span = std::max<std::int64_t>(last - first, 3);
  for (int i = 0; i < 3; ++i) out.emplace_back(first + span * i / 3, first + span * (i + 1) / 3);
  for (std::size_t i = 0; i < ex.size() && i < 6; ++i) out.emplace_back(ex[i].start_ps - 1, ex[i].end_ps + 1);
  if (ex.size() >= 2)
    out.emplace_back((ex[0].start_ps + ex[0].end_ps) / 2, (ex[1].start_ps + ex[1].end_ps) / 2);
  return out;
}

class ReportReuse : public testing::TestWithParam<std::string> {};

TEST_P(ReportReuse, ReusedExecutionsGiveTheSameReport) {
  const auto capture = capture::read_capture(kData + "/" + GetParam());
  const HostReport whole = build_host_report(*capture, {});
  const auto windows = windows_of(whole);
  if (windows.empty()) GTEST_SKIP() << GetParam() << " has no executions: nothing to re-scope";
  for (const auto& w : windows) {
    ReportOptions scoped;
    scoped.time_window = w;
    const std::string fresh = json_of(build_host_report(*capture, scoped), scoped);
    scoped.whole_capture = &whole;
    const HostReport reused = build_host_report(*capture, scoped);
    EXPECT_EQ(json_of(reused, scoped), fresh) << GetParam() << " window " << w.first << " .. " << w.second;
    // The same executions, shared rather than copied.
    EXPECT_EQ(reused.runtime.executions, whole.runtime.executions);
    // Also when the module is named, as the GUI does for a range.
    if (whole.plan) {
      scoped.program_id = whole.plan->program_id;
      scoped.whole_capture = nullptr;
      const std::string named = json_of(build_host_report(*capture, scoped), scoped);
      scoped.whole_capture = &whole;
      EXPECT_EQ(json_of(build_host_report(*capture, scoped), scoped), named) << GetParam();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Captures, ReportReuse,
                         testing::Values("jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
                                         "jax0.8_rocm_mi300x_gemm.xplane.pb",
                                         "jax0.8_rocm_mi300x_elementwise.xplane.pb",
                                         "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
                                         "jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
                                         "jax_tpu_v6e_inference.xplane.pb", "hand/hand_oom_retry.xplane.pb",
                                         "hand/hand_leak.xplane.pb", "hand/hand_two_devices.xplane.pb",
                                         "hand/hand_same_name_interleaved.xplane.pb",
                                         "two_host/worker-0.xplane.pb"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char c : info.param)
                             if (std::isalnum(static_cast<unsigned char>(c))) name += c;
                           return name;
                         });

// A report that is not the whole capture of this file is not reused: its executions would be wrong here.
TEST(ReportReuseGuard, AnotherFilesOrAScopedReportIsIgnored) {
  const auto conv = capture::read_capture(kData + "/jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb");
  const auto gemm = capture::read_capture(kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb");
  const HostReport whole_conv = build_host_report(*conv, {});
  const HostReport whole_gemm = build_host_report(*gemm, {});
  ASSERT_FALSE(whole_gemm.runtime.all_executions().empty());
  const auto windows = windows_of(whole_conv);
  ASSERT_FALSE(windows.empty());
  ReportOptions scoped;
  scoped.time_window = windows.front();
  const std::string fresh = json_of(build_host_report(*conv, scoped), scoped);

  scoped.whole_capture = &whole_gemm;  // another file
  EXPECT_EQ(json_of(build_host_report(*conv, scoped), scoped), fresh);

  // A re-scoped report of this file holds every execution too, but is not taken for the whole capture;
  // here its executions are made wrong on purpose, so using them would show.
  ReportOptions other = scoped;
  other.whole_capture = nullptr;
  HostReport ranged = build_host_report(*conv, other);
  auto wrong = std::make_shared<std::vector<RuntimeExecution>>(*ranged.runtime.executions);
  for (RuntimeExecution& e : *wrong) e.number += 100;
  ranged.runtime.executions = std::move(wrong);
  scoped.whole_capture = &ranged;
  EXPECT_EQ(json_of(build_host_report(*conv, scoped), scoped), fresh);
}

}  // namespace
}  // namespace oomscope::analysis
