// The Kineto reader's distributedInfo and ProfilerStep#N fields (core/snapshot/kineto_events.cpp) on hostile
// values: wrong types, ranks beyond int64 or beyond the world size, negative and over-long steps. Each is
// read as docs/pytorch-files.md says (absent, -1, or not a step) or refused by the rank job with a reason
// naming the file; none crashes.

#include <gtest/gtest.h>

#include <string>

#include "core/snapshot/kineto.h"
#include "core/snapshot/kineto_ranks.h"

namespace oomscope::snapshot {
namespace {

const std::string kMemory =
    R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Device Type":1,"Device Id":0,"Addr":4096,)"
    R"("Bytes":512,"Total Allocated":512,"Total Reserved":2097152}})";

std::shared_ptr<const KinetoTrace> with_info(const std::string& info, const std::string& name = "t.json") {
  return read_kineto_trace_from_text(R"({"distributedInfo":)" + info + R"(,"traceEvents":[)" + kMemory + "]}",
                                     name);
}

std::shared_ptr<const KinetoTrace> with_steps(const std::string& steps) {
  return read_kineto_trace_from_text(R"({"traceEvents":[)" + steps + "," + kMemory + "]}", "steps.json");
}

TEST(KinetoHostileFields, DistributedInfoOfTheWrongTypeIsAbsent) {
  EXPECT_FALSE(with_info("3")->distributed.has_value());
  EXPECT_FALSE(with_info(R"(["rank",3])")->distributed.has_value());
  EXPECT_FALSE(with_info("null")->distributed.has_value());
}

TEST(KinetoHostileFields, ARankOrWorldSizeThatIsNotAWholeNumberFromZeroIsMinusOne) {
  for (const char* bad : {R"("3")", "-1", "2.5", "1e3", "true", "null", "{}", "9223372036854775808",
                          "18446744073709551615", "-9223372036854775808"}) {
    const auto t = with_info(std::string(R"({"rank":)") + bad + R"(,"world_size":)" + bad + "}");
    ASSERT_TRUE(t->distributed.has_value()) << bad;
    EXPECT_EQ(t->distributed->rank, -1) << bad;
    EXPECT_EQ(t->distributed->world_size, -1) << bad;
  }
  const auto backend = with_info(R"({"rank":1,"backend":7})");
  EXPECT_EQ(backend->distributed->rank, 1);
  EXPECT_EQ(backend->distributed->backend, "");
}

TEST(KinetoHostileFields, TheLargestInt64RankIsReadAndTheLastDistributedInfoCounts) {
  const auto t = with_info(R"({"rank":9223372036854775807})");
  EXPECT_EQ(t->distributed->rank, 9223372036854775807);
  const auto twice = read_kineto_trace_from_text(
      R"({"distributedInfo":{"rank":1},"traceEvents":[)" + kMemory + R"(],"distributedInfo":{"rank":2}})",
      "twice.json");
  EXPECT_EQ(twice->distributed->rank, 2);
}

TEST(KinetoHostileFields, NegativeOverLongAndMalformedStepsAreNotSteps) {
  const auto t = with_steps(
      R"({"ph":"X","name":"ProfilerStep#-1","ts":1},{"ph":"X","name":"ProfilerStep#12a","ts":2},)"
      R"({"ph":"X","name":"ProfilerStep#","ts":3},{"ph":"X","name":"ProfilerStep#1234567890123","ts":4},)"
      R"({"ph":"X","name":"ProfilerStep#5","ts":"5"},{"ph":"X","name":"ProfilerStep#999999999999","ts":6},)"
      R"({"ph":"X","name":"ProfilerStep#3","ts":1e308})");
  ASSERT_EQ(t->steps.size(), 2u);  // in time order
  EXPECT_EQ(t->steps[0].step, 999999999999);
  EXPECT_EQ(t->steps[1].step, 3);
  EXPECT_EQ(t->steps[1].ts_us, 1e308);
}

TEST(KinetoHostileFields, HugeRanksMakeAJobAndARankBeyondTheWorldSizeIsLeftOutWithItsReason) {
  const auto big = with_info(R"({"rank":9223372036854775807})", "big.json");
  const auto zero = with_info(R"({"rank":0})", "zero.json");
  const KinetoRankJob job = compare_kineto_ranks({big, zero}, std::nullopt);
  ASSERT_TRUE(job.is_job);
  EXPECT_EQ(job.ranks.back().rank, 9223372036854775807);

  const auto beyond = with_info(R"({"rank":4,"world_size":4})", "beyond.json");
  const auto one = with_info(R"({"rank":1,"world_size":4})", "one.json");
  const auto two = with_info(R"({"rank":2,"world_size":4})", "two.json");
  const KinetoRankJob j = compare_kineto_ranks({beyond, one, two}, std::nullopt);
  ASSERT_EQ(j.ranks.size(), 2u);
  ASSERT_EQ(j.excluded.size(), 1u);
  EXPECT_EQ(j.excluded[0].path, "beyond.json");
  EXPECT_EQ(j.excluded[0].reason,
            "its distributedInfo.rank 4 is not below its world_size 4: not a rank of that job");
}

}  // namespace
}  // namespace oomscope::snapshot
