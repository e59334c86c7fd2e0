// One run on two hosts (tests/data/two_host, written by tests/data/tools/make_two_host_run.py from the real
// gemm capture). worker-0's lines are since the epoch: the reader counts them from a base (no int64
// picosecond overflow) and records it as the clock origin; worker-1 is normalised to its profile start,
// which is its origin. Placed on one clock, worker-1 waited for memory first although its own clock says
// later. Expected figures are the script's construction: S is the gemm capture's profile start; worker-1
// started 6 ms earlier; the waits are at 9 ms (worker-0) and 12 ms (worker-1) on each host's own clock.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/analysis/report/host_comparison.h"
#include "core/analysis/report/report.h"
#include "core/capture/reader.h"

namespace oomscope::analysis {
namespace {

const std::string kRun = std::string(OOMSCOPE_TEST_DATA) + "/two_host/";
constexpr std::int64_t S = 1771595650217823548;
constexpr std::int64_t kMs = 1'000'000;  // ns

TEST(TwoHostClock, SinceEpochLinesAreCountedFromABaseNotSaturated) {
  const auto epoch = capture::read_capture(kRun + "worker-0.xplane.pb");
  const std::int64_t base = S - S % 1'000'000'000;
  ASSERT_EQ(epoch->clock_origin_ns(), std::optional<std::int64_t>(base));
  ASSERT_EQ(epoch->allocator_retries().size(), 1u);
  EXPECT_EQ(epoch->allocator_retries().front().time_ps, (S - base + 9 * kMs) * 1000);
  // Every event time is finite and inside the 13 ms capture, counted from the base.
  for (const capture::MemoryEvent& m : epoch->memory_events()) {
    EXPECT_GE(m.time_ps, (S - base) * 1000);
    EXPECT_LT(m.time_ps, (S - base + 14 * kMs) * 1000);
  }
  bool noted = false;
  for (const std::string& n : epoch->reader_notes()) noted |= n.find("since the epoch") != std::string::npos;
  EXPECT_TRUE(noted);

  const auto normalised = capture::read_capture(kRun + "worker-1.xplane.pb");
  EXPECT_EQ(normalised->clock_origin_ns(), std::optional<std::int64_t>(S - 6 * kMs));
  EXPECT_EQ(normalised->allocator_retries().front().time_ps, 12 * kMs * 1000);
  // The same events in both files: the same figures, whatever the clock form.
  EXPECT_EQ(epoch->memory_events().size(), normalised->memory_events().size());
  EXPECT_EQ(epoch->allocators().front().max_bytes_in_use, normalised->allocators().front().max_bytes_in_use);
}

TEST(TwoHostClock, OnOneClockTheHostThatWaitedFirstIsNamed) {
  std::vector<std::shared_ptr<const capture::Capture>> captures{
      capture::read_capture(kRun + "worker-0.xplane.pb"), capture::read_capture(kRun + "worker-1.xplane.pb")};
  std::vector<HostReport> reports;
  for (const auto& c : captures) reports.push_back(build_host_report(*c, {}));
  const HostComparison c = compare_hosts(reports, captures);
  ASSERT_EQ(c.hosts.size(), 2u);
  EXPECT_TRUE(c.one_clock);
  EXPECT_EQ(c.basis, FirstOutBasis::EarliestTrouble);
  EXPECT_EQ(c.first_out, std::optional<std::size_t>(1));
  EXPECT_EQ(c.hosts[0].first_trouble_wall_ns, std::optional<std::int64_t>(S + 9 * kMs));
  EXPECT_EQ(c.hosts[1].first_trouble_wall_ns, std::optional<std::int64_t>(S + 6 * kMs));
  EXPECT_EQ(
      c.explanation.rfind("worker-1 ran out first: its AllocatorRetry wait at 2026-02-20 13:54:10.223 UTC, "
                          "3.0 ms before worker-0's AllocatorRetry wait",
                          0),
      0u)
      << c.explanation;
  // By each host's own clock the order is the other way round: what one clock changes.
  EXPECT_LT(*c.hosts[0].first_trouble_ps - (S % 1'000'000'000) * 1000, *c.hosts[1].first_trouble_ps);
}

TEST(TwoHostClock, WallTimesAreWrittenInUtc) {
  EXPECT_EQ(format_wall_time(0), "1970-01-01 00:00:00.000 UTC");
  EXPECT_EQ(format_wall_time(S + 6 * kMs), "2026-02-20 13:54:10.223 UTC");
  EXPECT_EQ(format_wall_time(-1), "1969-12-31 23:59:59.999 UTC");
}

}  // namespace
}  // namespace oomscope::analysis
