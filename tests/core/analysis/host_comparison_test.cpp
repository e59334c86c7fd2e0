#include "core/analysis/report/host_comparison.h"

#include <gtest/gtest.h>

#include <limits>

namespace oomscope::analysis {
namespace {

HostReport host(const std::string& name, std::int64_t peak, std::int64_t capacity) {
  HostReport r;
  r.path = "/runs/" + name + ".xplane.pb";
  r.hostnames = {name};
  AllocatorRuntime pool;
  pool.index = 0;
  pool.name = "GPU_0_bfc";
  pool.peak_bytes_in_use = peak;
  pool.capacity_bytes = capacity;
  r.runtime.allocators.push_back(pool);
  return r;
}

// The analysed module's executions, the one at `never` never launched its kernels.
void executions(HostReport& r, std::vector<std::int64_t> starts, std::optional<std::size_t> never) {
  ModuleRuntime m;
  m.module = "jit_step";
  m.allocator = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    RuntimeExecution e;
    e.label = "jit_step";
    e.start_ps = starts[i];
    e.number = int(i + 1);
    e.launched = never != i;
    m.executions.push_back(e);
  }
  r.runtime.executions_total = std::int64_t(starts.size());
  r.runtime.module = m;
}

TEST(HostComparison, EarliestNeverLaunchedExecutionRanOutFirst) {
  std::vector<HostReport> reports{host("a", 90, 100), host("b", 50, 100), host("c", 10, 100)};
  executions(reports[0], {100, 200, 300}, 2);  // a's third execution (at 300) never launched
  executions(reports[1], {100, 150, 250}, 1);  // b's second (at 150): earlier
  executions(reports[2], {100, 200}, std::nullopt);
  const HostComparison c = compare_hosts(reports, {});
  ASSERT_EQ(c.hosts.size(), 3u);
  EXPECT_EQ(c.basis, FirstOutBasis::EarliestTrouble);
  EXPECT_EQ(c.first_out, std::optional<std::size_t>(1));
  EXPECT_EQ(c.hosts[1].first_trouble, "execution 2 of jit_step never launched");
  EXPECT_EQ(c.hosts[1].first_trouble_ps, std::optional<std::int64_t>(150));
  EXPECT_FALSE(c.hosts[2].first_trouble_ps);
  EXPECT_EQ(c.hosts[0].executions, 3);
  EXPECT_EQ(c.explanation.rfind("b ran out first", 0), 0u) << c.explanation;
}

TEST(HostComparison, NothingRanOutNamesTheFullestPoolAsClosest) {
  std::vector<HostReport> reports{host("a", 60, 100), host("b", 80, 200), host("c", 70, 100)};
  const HostComparison c = compare_hosts(reports, {});
  EXPECT_EQ(c.basis, FirstOutBasis::HighestPeakRatio);
  EXPECT_EQ(c.first_out, std::optional<std::size_t>(2));  // 70 % beats 60 % and 40 %
  ASSERT_TRUE(c.hosts[1].peak_fraction);
  EXPECT_DOUBLE_EQ(*c.hosts[1].peak_fraction, 0.4);
  EXPECT_NE(c.explanation.find("c came closest to running out"), std::string::npos) << c.explanation;
  EXPECT_NE(c.explanation.find("(70 %)"), std::string::npos) << c.explanation;
}

TEST(HostComparison, SaturatedTimesAreNotOrdered) {
  // An epoch timestamp overflows the reader's picoseconds and saturates: that host ran short, but when is
  // unknown, so it is not called first; the fullest pool is named instead, and the shortage is said.
  std::vector<HostReport> reports{host("a", 90, 100), host("b", 50, 100)};
  executions(reports[0], {std::numeric_limits<std::int64_t>::max()}, 0);
  executions(reports[1], {std::numeric_limits<std::int64_t>::max()}, 0);
  const HostComparison c = compare_hosts(reports, {});
  EXPECT_EQ(c.basis, FirstOutBasis::HighestPeakRatio);
  EXPECT_EQ(c.first_out, std::optional<std::size_t>(0));
  EXPECT_FALSE(c.hosts[0].first_trouble_ps);
  EXPECT_EQ(c.hosts[0].first_trouble, "execution 1 of jit_step never launched (time unknown)");
  EXPECT_EQ(c.explanation.rfind("a, b ran short, at times that cannot be compared; a came closest", 0), 0u)
      << c.explanation;
}

TEST(HostComparison, NoCapacityAnywhereSaysNothingCanBeTold) {
  HostReport bare;
  bare.path = "/runs/plan_only.xplane.pb";
  std::vector<HostReport> reports{bare, bare};
  const HostComparison c = compare_hosts(reports, {});
  EXPECT_EQ(c.basis, FirstOutBasis::None);
  EXPECT_FALSE(c.first_out);
  EXPECT_EQ(c.hosts[0].host, "plan_only.xplane.pb");  // no host name recorded: the file name
  EXPECT_FALSE(c.hosts[0].peak_bytes);
}

TEST(HostComparison, ThePoolIsTheAnalysedModulesAllocator) {
  HostReport r = host("a", 10, 100);
  AllocatorRuntime other;
  other.index = 1;
  other.name = "xla_gpu_host_bfc";
  other.peak_bytes_in_use = 500;  // larger, but not where the module allocates
  other.capacity_bytes = 1000;
  r.runtime.allocators.push_back(other);
  executions(r, {1}, std::nullopt);
  std::vector<HostReport> reports{r};
  EXPECT_EQ(compare_hosts(reports, {}).hosts[0].pool, "GPU_0_bfc");
  reports[0].runtime.module.reset();
  EXPECT_EQ(compare_hosts(reports, {}).hosts[0].pool, "xla_gpu_host_bfc");
}

}  // namespace
}  // namespace oomscope::analysis
