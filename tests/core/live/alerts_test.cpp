// Alert rules: parsing (and its errors), thresholds that re-arm, growth per 1,000 steps, counters that
// move, the driver/allocated gap, shapes still rising, events.

#include "core/live/client/alerts.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace oomscope::live {
namespace {

Sample at(std::int64_t step, std::int64_t driver, std::int64_t alloc = 1'000'000'000, std::int64_t ooms = 0) {
  Sample s;
  s.t = step * 1000;
  s.set(Field::Step, step);
  s.set(Field::Driver, driver);
  s.set(Field::Allocated, alloc);
  s.set(Field::Ooms, ooms);
  return s;
}

TEST(LiveAlerts, ParsesRulesAndSaysWhatIsWrong) {
  EXPECT_EQ(parse_alert_rule("driver>22000MB").limit, 22'000'000'000);
  EXPECT_EQ(parse_alert_rule("device_used>1GiB").limit, 1LL << 30);
  EXPECT_EQ(parse_alert_rule("growth:driver>500MB/1000steps").kind, AlertRule::Kind::Growth);
  EXPECT_EQ(parse_alert_rule("shapes-rising:100").limit, 100);
  EXPECT_EQ(parse_alert_rule("moves:ooms").field, Field::Ooms);
  for (const char* bad :
       {"", "driver", "drvier>1GB", "driver>lots", "driver>1XB", "moves:nothing", "event:"}) {
    try {
      parse_alert_rule(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("alert rule"), std::string::npos);
    }
  }
}

TEST(LiveAlerts, ThresholdFiresOnceAndRearms) {
  AlertEngine a;
  a.add_rule(parse_alert_rule("driver>22000MB"));
  a.on_sample(0, at(1, 21'000'000'000));
  a.on_sample(0, at(2, 22'500'000'000));
  a.on_sample(0, at(3, 23'000'000'000));
  ASSERT_EQ(a.alerts().size(), 1u);
  EXPECT_EQ(a.alerts()[0].figure, 22'500'000'000);
  EXPECT_EQ(a.alerts()[0].message, "rank 0: driver 22,500 MB is over 22,000 MB (rule driver>22000MB)");
  a.on_sample(0, at(4, 1'000'000'000));
  a.on_sample(2, at(5, 43'254'000'000));
  ASSERT_EQ(a.alerts().size(), 2u);
  EXPECT_EQ(a.alerts()[1].rank, 2);
}

TEST(LiveAlerts, GrowthPerThousandSteps) {
  AlertEngine a;
  a.add_rule(parse_alert_rule("growth:driver>5000MB"));
  // 1.2 GB to 43.3 GB over 2,800 steps (the reference's re-run): ~15 GB per 1,000 steps.
  for (std::int64_t step = 3000; step <= 5800; step += 20)
    a.on_sample(0, at(step, 1'200'000'000 + (step - 3000) * 15'035'714));
  ASSERT_EQ(a.alerts().size(), 1u);
  EXPECT_NEAR(static_cast<double>(a.alerts()[0].figure), 15.0e9, 0.1e9);
  EXPECT_NE(a.alerts()[0].message.find("per 1,000 steps"), std::string::npos);
}

TEST(LiveAlerts, CountersGapShapesEvents) {
  AlertEngine a;
  for (const char* r : {"moves:ooms", "gap>40GB", "shapes-rising:100", "event:oom"})
    a.add_rule(parse_alert_rule(r));
  a.on_sample(0, at(1, 2'000'000'000, 1'000'000'000, 0));
  a.on_sample(0, at(2, 43'254'000'000, 1'086'000'000, 0));
  a.on_sample(0, at(3, 43'254'000'000, 1'086'000'000, 1));
  a.on_shapes(0, Shapes{1, 50, {}, {}});
  a.on_shapes(0, Shapes{2, 9072, {}, {}});
  a.on_event(0, Event{3, "oom", "MPS backend out of memory", "", std::nullopt});
  ASSERT_EQ(a.alerts().size(), 4u);
  EXPECT_EQ(a.alerts()[0].rule, "gap>40GB");
  EXPECT_EQ(a.alerts()[0].figure, 42'168'000'000);
  EXPECT_EQ(a.alerts()[1].rule, "moves:ooms");
  EXPECT_EQ(a.alerts()[2].figure, 9072);
  EXPECT_EQ(a.alerts()[3].rule, "event:oom");
}

}  // namespace
}  // namespace oomscope::live

// Shape churn lives next to the alerts it explains.
#include "core/live/client/shape_churn.h"

namespace oomscope::live {
namespace {

TEST(LiveShapeChurn, FindsVaryingDimensionsAndCostsBuckets) {
  std::vector<Shape> shapes;
  for (std::int64_t len = 5; len <= 300; ++len) shapes.push_back({16, len, 64});
  shapes.push_back({16, 7, 64});  // a duplicate
  const ShapeChurn c = analyse_shape_churn(shapes, 400);
  EXPECT_EQ(c.shapes, 296);
  EXPECT_EQ(c.reported, 400);
  ASSERT_EQ(c.dims.size(), 1u);
  EXPECT_EQ(c.dims[0].index, 1);
  EXPECT_EQ(c.dims[0].min, 5);
  EXPECT_EQ(c.dims[0].max, 300);
  const BucketPlan* pow2 = nullptr;
  const BucketPlan* m8 = nullptr;
  for (const auto& p : c.plans) {
    if (p.name == "powers of two") pow2 = &p;
    if (p.name == "multiples of 8") m8 = &p;
  }
  ASSERT_TRUE(pow2 && m8);
  // 5..300 padded to 8,16,...,512: 7 shapes.
  EXPECT_EQ(pow2->distinct_after, 7);
  EXPECT_EQ(m8->distinct_after, 38);
  EXPECT_GT(pow2->waste, m8->waste);
  EXPECT_GT(m8->waste, 0.0);
  EXPECT_NE(shape_churn_text(c).find("dimension 1 varies: 296 sizes from 5 to 300"), std::string::npos)
      << shape_churn_text(c);
  EXPECT_TRUE(analyse_shape_churn({{4, 4}, {4, 4}}).dims.empty());
}

}  // namespace
}  // namespace oomscope::live
