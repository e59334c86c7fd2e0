// Whether captures read together were taken together (hosts of one run) or apart: judge_capture_runs on the
// real captures' recorded figures (hostnames, profile_start_time, module names, read with Python's protobuf
// from tests/data) and on the cases they lack.
#include "core/analysis/report/capture_runs.h"

#include <gtest/gtest.h>

namespace oomscope::analysis {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// tests/data/two_host: worker-1's profile started 6 ms before worker-0's; both ran the gemm capture's
// modules.
std::vector<CaptureIdentity> two_host_run() {
  return {
      {"two_host/worker-0.xplane.pb", {"worker-0"}, 1771595650217823548, {"jit_dot", "jit_broadcast_in_dim"}},
      {"two_host/worker-1.xplane.pb",
       {"worker-1"},
       1771595650211823548,
       {"jit_broadcast_in_dim", "jit_dot"}}};
}

TEST(CaptureRuns, TheHostsOfOneRunAreTakenTogether) {
  const CaptureRuns runs = judge_capture_runs(two_host_run());
  EXPECT_EQ(runs.verdict, CaptureRunsVerdict::Together);
  EXPECT_EQ(runs.spread_ns, 6 * kMs);
  EXPECT_EQ(runs.sentence,
            "these 2 captures ran the same modules and their profiles started within 6.00 ms of each other "
            "[read]: taken together, as the hosts of one run are");
}

TEST(CaptureRuns, ProfilesStartedMonthsApartAreDifferentRuns) {
  // The two conv3d captures of tests/data (tests/data/two_runs): one workload, 2025-09-10 and 2026-02-20.
  const std::vector<CaptureIdentity> two = {
      {"a.xplane.pb", {"tw003"}, 1771595639214724894, {"jit_forward_3d_conv"}},
      {"b.xplane.pb", {"chi-mi300x-013"}, 1757516928109201518, {"jit_forward_3d_conv"}}};
  const CaptureRuns runs = judge_capture_runs(two);
  EXPECT_EQ(runs.verdict, CaptureRunsVerdict::Apart);
  EXPECT_NE(runs.sentence.find("not of one run captured together: their profiles started 162.9 days apart "
                               "[read] (b.xplane.pb at 2025-09-10"),
            std::string::npos)
      << runs.sentence;
  EXPECT_NE(runs.sentence.find("a.xplane.pb at 2026-02-20"), std::string::npos) << runs.sentence;
  EXPECT_NE(runs.sentence.find("different runs (or one run at different moments)"), std::string::npos);
}

TEST(CaptureRuns, DifferentModulesAreDifferentRunsWhateverTheClock) {
  // The gemm and conv3d captures of tests/data: one host, 11 s apart, different programs.
  const std::vector<CaptureIdentity> two = {
      {"gemm.xplane.pb", {"tw003"}, 1771595650217823548, {"jit_dot"}},
      {"conv.xplane.pb", {"tw003"}, 1771595639214724894, {"jit_forward_3d_conv"}}};
  const CaptureRuns runs = judge_capture_runs(two);
  EXPECT_EQ(runs.verdict, CaptureRunsVerdict::DifferentPrograms);
  EXPECT_NE(runs.sentence.find("gemm.xplane.pb and conv.xplane.pb ran different XLA modules"),
            std::string::npos)
      << runs.sentence;
}

TEST(CaptureRuns, OneHostTwiceIsNotTwoHosts) {
  std::vector<CaptureIdentity> two = two_host_run();
  two[1].hostnames = {"worker-0"};
  const CaptureRuns runs = judge_capture_runs(two);
  EXPECT_EQ(runs.verdict, CaptureRunsVerdict::OneHost);
  EXPECT_NE(runs.sentence.find("but they name 1 host: several processes of one host"), std::string::npos)
      << runs.sentence;
}

TEST(CaptureRuns, WithoutAStartTimeItCannotBeTold) {
  std::vector<CaptureIdentity> two = two_host_run();
  two[1].profile_start_ns.reset();
  const CaptureRuns runs = judge_capture_runs(two);
  EXPECT_EQ(runs.verdict, CaptureRunsVerdict::Unknown);
  EXPECT_NE(runs.sentence.find("cannot be told: two_host/worker-1.xplane.pb records no profile start time"),
            std::string::npos)
      << runs.sentence;
  EXPECT_EQ(judge_capture_runs(std::span(two).first(1)).verdict, CaptureRunsVerdict::Single);
  EXPECT_EQ(judge_capture_runs(std::span(two).first(1)).sentence, "");
}

TEST(CaptureRuns, SpreadsAreWrittenInAUnitThatReads) {
  EXPECT_EQ(format_spread(6 * kMs), "6.00 ms");
  EXPECT_EQ(format_spread(42'000 * kMs), "42.0 s");
  EXPECT_EQ(format_spread(750'000 * kMs), "12.5 min");
  EXPECT_EQ(format_spread(11'520'000 * kMs), "3.2 h");
  EXPECT_EQ(format_spread(354'240'000 * kMs), "4.1 days");
}

}  // namespace
}  // namespace oomscope::analysis
