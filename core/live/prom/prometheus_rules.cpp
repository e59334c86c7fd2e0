// Live alert rules as Prometheus alerting rules (see prometheus_rules.h).

#include "core/live/prom/prometheus_rules.h"

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/live/protocol/metric_names.h"
#include "core/util/error.h"

namespace oomscope::live {

namespace {

[[noreturn]] void bad(const std::string& why) { throw Error(ErrorKind::InvalidArgument, {}, why); }

void check_duration(const char* what, const std::string& d) {
  static const std::regex re("([0-9]+(ms|s|m|h|d|w|y))+");
  if (!std::regex_match(d, re))
    bad(std::string(what) + " '" + d + "' is not a Prometheus duration such as 30s, 1m, 15m or 1h");
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }  // valid YAML too

std::string camel(std::string_view s) {
  std::string out;
  bool up = true;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      up = false;
    } else {
      up = true;
    }
  }
  return out;
}

// The part after '>' as the user wrote it ("22000MB").
std::string limit_text(const AlertRule& r) {
  const auto gt = r.text.find('>');
  return gt == std::string::npos ? std::to_string(r.limit) : r.text.substr(gt + 1);
}

class Writer {
 public:
  explicit Writer(const PromRulesOptions& o) : o_(o) {}

  std::string sel(std::string_view metric, const std::string& extra = {}) const {
    std::string m = o_.selector;
    if (!extra.empty()) m += (m.empty() ? "" : ",") + extra;
    return std::string(metric) + (m.empty() ? "" : "{" + m + "}");
  }
  std::string range(std::string_view metric, const std::string& window, const std::string& extra = {}) const {
    return sel(metric, extra) + "[" + window + "]";
  }

 private:
  const PromRulesOptions& o_;
};

const char* const kWho = "rank {{ $labels.rank }} on {{ $labels.host }}";
const char* const kWhere =
    " (job {{ $labels.job }}, rank {{ $labels.rank }}, host {{ $labels.host }}, device {{ $labels.device }})";

std::string value_text(Field f) {
  return field_is_bytes(f) ? "{{ $value | humanize }}B" : "{{ $value | humanize }}";
}

}  // namespace

std::vector<AlertRule> parse_alert_rule_list(std::string_view text, const std::string& source) {
  std::vector<AlertRule> out;
  std::string item;
  bool comment = false;
  auto flush = [&] {
    if (item.empty()) return;
    try {
      out.push_back(parse_alert_rule(item));
    } catch (const Error& e) {
      bad(source + ": " + e.message());
    }
    item.clear();
  };
  for (const char c : text) {
    if (c == '\n') {
      comment = false;
      flush();
    } else if (comment) {
      continue;
    } else if (c == '#') {
      flush();
      comment = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  return out;
}

PromRules prometheus_rules(const std::vector<AlertRule>& rules, const PromRulesOptions& o) {
  check_duration("--for", o.for_duration);
  check_duration("--window", o.window);
  check_duration("the moves window", o.moves_window);
  if (o.group.empty() || o.group.find_first_of("\n\r") != std::string::npos) bad("the group name is empty");
  if (o.selector.find_first_of("{}\n\r") != std::string::npos)
    bad("--selector '" + o.selector + "': give label matchers without braces, e.g. job=\"train\"");
  Writer w(o);
  PromRules out;
  std::set<std::string> names;
  const std::string step = std::string(metric_for_field(Field::Step));
  for (const AlertRule& r : rules) {
    PromRule p;
    p.rule = r.text;
    p.severity = "warning";
    std::string name;
    const std::string metric(metric_for_field(r.field));
    const std::string field = field_name(r.field);
    const bool needs_metric = r.kind == AlertRule::Kind::Threshold || r.kind == AlertRule::Kind::Growth ||
                              r.kind == AlertRule::Kind::Moves;
    if (needs_metric && metric.empty()) {
      out.skipped.emplace_back(r.text, "the agents do not export '" + field + "' to Prometheus");
      continue;
    }
    switch (r.kind) {
      case AlertRule::Kind::Threshold:
        name = "Oomscope" + camel(field) + "High";
        p.expr = w.sel(metric) + " > " + std::to_string(r.limit);
        p.for_duration = o.for_duration;
        p.summary = std::string(kWho) + ": " + field + " over " + limit_text(r);
        p.description =
            field + " is " + value_text(r.field) + kWhere + "; the limit is " + limit_text(r) + ".";
        break;
      case AlertRule::Kind::Growth:
        name = "Oomscope" + camel(field) + "Growing";
        p.expr = "(1000 * delta(" + w.range(metric, o.window) + ") / delta(" + w.range(step, o.window) +
                 ") > " + std::to_string(r.limit) + ") and delta(" + w.range(step, o.window) + ") >= 100";
        p.for_duration = o.for_duration;
        p.summary = std::string(kWho) + ": " + field + " grows over " + limit_text(r) + " per 1,000 steps";
        p.description = field + " grew " + value_text(r.field) + " per 1,000 optimizer steps over the last " +
                        o.window + kWhere + "; the limit is " + limit_text(r) + ".";
        break;
      case AlertRule::Kind::Moves:
        name = "Oomscope" + camel(field) + "Moved";
        p.expr =
            (metric_is_counter(r.field) ? "increase(" : "delta(") + w.range(metric, o.moves_window) + ") > 0";
        if (r.field == Field::Ooms) p.severity = "critical";
        p.summary = std::string(kWho) + ": " + field + " moved";
        p.description =
            field + " went up by " + value_text(r.field) + " in the last " + o.moves_window + kWhere + ".";
        break;
      case AlertRule::Kind::Gap: {
        name = "OomscopeGapHigh";
        const std::string driver(metric_for_field(Field::Driver)), used(metric_for_field(Field::DeviceUsed)),
            alloc(metric_for_field(Field::Allocated));
        const std::string limit = std::to_string(r.limit);
        p.expr.append("(")
            .append(w.sel(driver))
            .append(" - ")
            .append(w.sel(alloc))
            .append(") > ")
            .append(limit)
            .append(" or ((")
            .append(w.sel(used))
            .append(" - ")
            .append(w.sel(alloc))
            .append(") > ")
            .append(limit)
            .append(" unless ")
            .append(w.sel(driver))
            .append(")");
        p.for_duration = o.for_duration;
        p.summary =
            std::string(kWho) + ": driver or device memory over allocated by more than " + limit_text(r);
        p.description = "driver (MPS) or device_used memory is {{ $value | humanize }}B above allocated" +
                        std::string(kWhere) + "; the limit is " + limit_text(r) + ".";
        break;
      }
      case AlertRule::Kind::ShapesRising: {
        name = "OomscopeShapesRising";
        const std::string shapes(kShapesMetric.name);
        p.expr = "max_over_time(" + w.range(shapes, o.window) + ") - min_over_time(" +
                 w.range(shapes, o.window) + ") >= " + std::to_string(r.limit);
        p.summary = std::string(kWho) + ": distinct input shapes still rising";
        p.description = "{{ $value }} new distinct input shapes in the last " + o.window + kWhere +
                        " (limit " + std::to_string(r.limit) +
                        "); each new shape can grow a compiled-graph cache.";
        break;
      }
      case AlertRule::Kind::Forecast: {
        // The limiting figure as the desktop picks it (forecast.h), each pair only where the ones before
        // it are absent: its highest value over the moves window, plus its growth per optimizer step over
        // the window (deriv of the figure over deriv of the step) times STEPS, above its limit.
        name = "OomscopeForecastOom";
        const std::string n = std::to_string(r.limit);
        const std::string cap = "oomscope_device_capacity_bytes";
        auto term = [&](Field f, const std::string& limit) {
          const std::string m(metric_for_field(f));
          return "(max_over_time(" + w.range(m, o.moves_window) + ") + deriv(" + w.range(m, o.window) +
                 ") / deriv(" + w.range(step, o.window) + ") * " + n + ") > " + w.sel(limit);
        };
        const std::string driver(metric_for_field(Field::Driver)), used(metric_for_field(Field::DeviceUsed)),
            reserved(metric_for_field(Field::Reserved));
        p.expr = "((" + term(Field::Driver, "oomscope_recommended_max_bytes") + ") or (" +
                 term(Field::DeviceUsed, cap) + " unless " + w.sel(driver) + ") or (" +
                 term(Field::Reserved, cap) + " unless " + w.sel(used) + " unless " + w.sel(driver) +
                 ") or (" + term(Field::Allocated, cap) + " unless " + w.sel(reserved) + " unless " +
                 w.sel(used) + " unless " + w.sel(driver) + ")) and deriv(" + w.range(step, o.window) +
                 ") > 0";
        p.for_duration = o.for_duration;
        p.severity = "critical";
        p.summary = std::string(kWho) + ": forecast to run out of memory within " + n + " steps";
        p.description =
            "the limiting figure (driver vs the MPS recommended maximum, else device_used, reserved or "
            "allocated vs the device capacity) is projected to {{ $value | humanize }}B within " +
            n + " optimizer steps, at its growth per step over the last " + o.window + kWhere +
            "; derived by PromQL's deriv, a least-squares line (the desktop's forecast is the robust one).";
        break;
      }
      case AlertRule::Kind::EventKind:
        name = "OomscopeEvent" + camel(r.event_kind);
        p.expr = "increase(" + w.range(kEventsMetric.name, o.moves_window, "kind=" + quoted(r.event_kind)) +
                 ") > 0";
        if (r.event_kind == "oom") p.severity = "critical";
        p.summary = std::string(kWho) + ": " + r.event_kind + " event";
        p.description = "{{ $value | humanize }} " + r.event_kind + " event(s) in the last " +
                        o.moves_window + kWhere + ".";
        break;
    }
    if (name == "OomscopeEvent") name += "Kind";
    std::string unique = name;
    for (int k = 2; names.count(unique); ++k) unique = name + std::to_string(k);
    names.insert(unique);
    p.alert = unique;
    out.rules.push_back(std::move(p));
  }

  std::string y =
      "# Prometheus alerting rules written by `oomscope-cli alerts --prometheus-rules` from the oomscope\n"
      "# live alert rules";
  if (!o.sources.empty()) {
    y += " (";
    for (std::size_t i = 0; i < o.sources.size(); ++i) y += (i ? ", " : "") + o.sources[i];
    y += ")";
  }
  y += ". They read the agents' /metrics (docs/prometheus.md).\n";
  if (!out.skipped.empty()) {
    y += "# Not expressible in PromQL, left out:\n";
    for (const auto& [text, why] : out.skipped)
      y.append("#   ").append(text).append(": ").append(why).append("\n");
  }
  y += "groups:\n  - name: " + quoted(o.group) + "\n    rules:\n";
  if (out.rules.empty()) y.resize(y.size() - 1), y += " []\n";
  for (const PromRule& p : out.rules) {
    y += "      - alert: " + p.alert + "\n";
    y += "        expr: " + quoted(p.expr) + "\n";
    if (!p.for_duration.empty() && p.for_duration != "0s") y += "        for: " + p.for_duration + "\n";
    y += "        labels:\n          severity: " + p.severity +
         "\n          oomscope_rule: " + quoted(p.rule) + "\n";
    y += "        annotations:\n          summary: " + quoted(p.summary) +
         "\n          description: " + quoted(p.description) + "\n";
  }
  out.yaml = std::move(y);
  return out;
}

}  // namespace oomscope::live
