// Live alert rules as Prometheus alerting rules: each kind's PromQL, the rules that cannot be written,
// unique alert names, option checks, and the rule-list format the Live page's Alerts field uses.
// (promtool checks and unit-tests the written files in tests/live/test_prometheus_rules.py.)

#include "core/live/prom/prometheus_rules.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace oomscope::live {
namespace {

TEST(PrometheusRules, EachKindAndWhatIsLeftOut) {
  const auto rules = parse_alert_rule_list(
      "driver>1KB # first\n driver>2KB, moves:ooms;event:restart  micro>3\nshapes-rising", "inline");
  ASSERT_EQ(rules.size(), 6u);
  PromRulesOptions o;
  o.selector = "job=\"t\"";
  const PromRules r = prometheus_rules(rules, o);
  ASSERT_EQ(r.rules.size(), 5u);
  EXPECT_EQ(r.rules[0].alert, "OomscopeDriverHigh");
  EXPECT_EQ(r.rules[0].expr, "oomscope_driver_bytes{job=\"t\"} > 1000");
  EXPECT_EQ(r.rules[0].for_duration, "1m");
  EXPECT_EQ(r.rules[1].alert, "OomscopeDriverHigh2");
  EXPECT_EQ(r.rules[2].expr, "increase(oomscope_ooms_total{job=\"t\"}[2m]) > 0");
  EXPECT_EQ(r.rules[2].severity, "critical");
  EXPECT_EQ(r.rules[3].expr, "increase(oomscope_events_total{job=\"t\",kind=\"restart\"}[2m]) > 0");
  EXPECT_EQ(r.rules[4].alert, "OomscopeShapesRising");
  EXPECT_NE(r.rules[4].expr.find(">= 50"), std::string::npos);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].first, "micro>3");
  EXPECT_NE(r.yaml.find("#   micro>3: the agents do not export 'micro'"), std::string::npos);
  EXPECT_NE(r.yaml.find("oomscope_rule: \"driver>2KB\""), std::string::npos);
}

TEST(PrometheusRules, BadOptionsAndListsAreErrors) {
  PromRulesOptions o;
  o.for_duration = "1 minute";
  EXPECT_THROW(prometheus_rules(default_alert_rules(), o), Error);
  o = {};
  o.selector = "{job=\"x\"}";
  EXPECT_THROW(prometheus_rules(default_alert_rules(), o), Error);
  try {
    parse_alert_rule_list("driver>1GB\nnonsense", "team.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("team.txt"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("nonsense"), std::string::npos) << e.message();
  }
  const PromRules none = prometheus_rules({}, {});
  EXPECT_NE(none.yaml.find("rules: []"), std::string::npos) << none.yaml;
}

}  // namespace
}  // namespace oomscope::live

namespace oomscope::live {
namespace {

TEST(PrometheusRules, ForecastProjectsTheLimitingFigurePerStep) {
  PromRulesOptions o;
  o.selector = "job=\"t\"";
  o.window = "10m";
  const PromRules r = prometheus_rules({parse_alert_rule("forecast:500")}, o);
  ASSERT_EQ(r.rules.size(), 1u);
  const PromRule& p = r.rules[0];
  EXPECT_EQ(p.alert, "OomscopeForecastOom");
  EXPECT_EQ(p.severity, "critical");
  // The allocated term: the recent highest value plus 500 steps of growth per step, over the capacity,
  // only where no reserved, device_used or driver figure is exported; and only while the step moves.
  EXPECT_NE(
      p.expr.find("(max_over_time(oomscope_allocated_bytes{job=\"t\"}[2m]) + "
                  "deriv(oomscope_allocated_bytes{job=\"t\"}[10m]) / "
                  "deriv(oomscope_optimizer_step{job=\"t\"}[10m]) * 500) > "
                  "oomscope_device_capacity_bytes{job=\"t\"} unless oomscope_reserved_bytes{job=\"t\"}"),
      std::string::npos)
      << p.expr;
  EXPECT_NE(p.expr.find("> oomscope_recommended_max_bytes{job=\"t\"}"), std::string::npos);
  EXPECT_TRUE(p.expr.ends_with("and deriv(oomscope_optimizer_step{job=\"t\"}[10m]) > 0")) << p.expr;
  EXPECT_NE(p.summary.find("within 500 steps"), std::string::npos);
}

}  // namespace
}  // namespace oomscope::live
