#pragma once
// The live alert rules (alerts.h) as a Prometheus alerting-rules file, so a cluster's own Prometheus and
// Alertmanager fire them over the agents' /metrics (docs/prometheus.md) without the desktop open.
//
//   FIELD>SIZE         METRIC > SIZE (held for `for_duration`)
//   growth:FIELD>SIZE  1000 * delta(METRIC[window]) / delta(oomscope_optimizer_step[window]) > SIZE,
//                      once the window spans at least 100 steps (the desktop looks back 1,000 steps)
//   moves:FIELD        increase(COUNTER[moves_window]) > 0 (delta for a gauge)
//   gap>SIZE           driver (MPS) or else device_used, minus allocated, > SIZE
//   shapes-rising[:N]  max_over_time - min_over_time of the distinct-shape count over `window` >= N
//                      (the desktop counts over 1,000 optimizer steps; Prometheus over time)
//   event:KIND         increase(oomscope_events_total{kind="KIND"}[moves_window]) > 0
//   forecast:STEPS     max_over_time(FIG[moves_window]) + deriv(FIG[window]) / deriv(oomscope_optimizer_step
//                      [window]) * STEPS > LIMIT, for the limiting figure the desktop picks (driver vs
//                      oomscope_recommended_max_bytes, else device_used, reserved, allocated vs
//                      oomscope_device_capacity_bytes), while the step moves
// A rule over a figure the agents do not export (micro) cannot be written and is listed in `skipped`.

#include <string>
#include <utility>
#include <vector>

#include "core/live/client/alerts.h"

namespace oomscope::live {

struct PromRulesOptions {
  std::string group = "oomscope";
  std::string selector;              // label matchers added to every series, e.g. job="train"
  std::string for_duration = "1m";   // threshold, gap, growth and shapes-rising rules
  std::string window = "15m";        // growth and shapes-rising look back this far
  std::string moves_window = "2m";   // moves and event rules: a counter that moved this recently
  std::vector<std::string> sources;  // where the rules came from, for the header comment
};

struct PromRule {
  std::string rule;  // the oomscope rule text
  std::string alert;
  std::string expr;
  std::string for_duration;  // empty: fires at once
  std::string severity;
  std::string summary;
  std::string description;
};

struct PromRules {
  std::vector<PromRule> rules;
  std::vector<std::pair<std::string, std::string>> skipped;  // (rule text, why it cannot be written)
  std::string yaml;                                          // the whole file
};

// Throws oomscope::Error(InvalidArgument) for a bad duration, group name or selector.
PromRules prometheus_rules(const std::vector<AlertRule>& rules, const PromRulesOptions& options);

// Rules as the Live page's Alerts field takes them: separated by spaces, commas, semicolons or newlines;
// `#` starts a comment to the end of the line. Throws oomscope::Error(InvalidArgument) naming `source`
// and the rule that is wrong.
std::vector<AlertRule> parse_alert_rule_list(std::string_view text, const std::string& source);

}  // namespace oomscope::live
