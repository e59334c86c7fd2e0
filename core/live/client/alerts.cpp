// Alert rules (see alerts.h).

#include "core/live/client/alerts.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/live/client/forecast.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::live {

namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, {}, "alert rule '" + std::string(text) + "': " + why);
}

// A threshold: a count, or a byte size in the one grammar (core/util/bytes.h).
std::int64_t parse_size(std::string_view rule, std::string_view s) {
  const ParsedBytes parsed = parse_byte_size(s);
  if (!parsed) bad(rule, parsed.error);
  return parsed.bytes;
}

Field parse_field(std::string_view rule, std::string_view name) {
  if (const auto f = field_from_name(name)) return *f;
  bad(rule,
      "unknown field '" + std::string(name) +
          "' (use a sample field such as driver, device_used, allocated, reserved, ooms, alloc_retries)");
}

// Bytes as decimal megabytes (the unit the reference's thresholds use); counters as plain numbers.
std::string figure(Field f, std::int64_t v) {
  if (!field_is_bytes(f)) return format_thousands(v);
  return format_thousands(static_cast<std::int64_t>(std::llround(static_cast<double>(v) / 1e6))) + " MB";
}

}  // namespace

AlertRule parse_alert_rule(std::string_view text) {
  AlertRule r;
  r.text = std::string(text);
  if (text.empty()) bad(text, "empty rule");
  if (text.starts_with("moves:")) {
    r.kind = AlertRule::Kind::Moves;
    r.field = parse_field(text, text.substr(6));
    return r;
  }
  if (text.starts_with("event:")) {
    r.kind = AlertRule::Kind::EventKind;
    r.event_kind = std::string(text.substr(6));
    if (r.event_kind.empty()) bad(text, "no event kind after 'event:'");
    return r;
  }
  if (text.starts_with("forecast:")) {
    r.kind = AlertRule::Kind::Forecast;
    const std::string_view n = text.substr(9);
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), r.limit);
    if (ec != std::errc() || end != n.data() + n.size() || r.limit < 1)
      bad(text, "expected forecast:STEPS with a whole number of optimizer steps of at least 1");
    return r;
  }
  if (text == "shapes-rising" || text.starts_with("shapes-rising:")) {
    r.kind = AlertRule::Kind::ShapesRising;
    r.limit = text.size() > 14 ? parse_size(text, text.substr(14)) : 50;
    if (r.limit < 1) bad(text, "the shape count must be at least 1");
    return r;
  }
  std::string_view body = text;
  if (body.starts_with("growth:")) {
    r.kind = AlertRule::Kind::Growth;
    body.remove_prefix(7);
  }
  const auto gt = body.find('>');
  if (gt == std::string_view::npos)
    bad(text,
        "expected FIELD>VALUE, growth:FIELD>VALUE, gap>VALUE, moves:FIELD, "
        "shapes-rising[:N], event:KIND or forecast:STEPS");
  const std::string_view lhs = body.substr(0, gt);
  std::string_view rhs = body.substr(gt + 1);
  if (r.kind == AlertRule::Kind::Growth && rhs.ends_with("/1000steps")) rhs.remove_suffix(10);
  if (lhs == "gap") {
    if (r.kind == AlertRule::Kind::Growth) bad(text, "growth of the gap is not a rule; use gap>SIZE");
    r.kind = AlertRule::Kind::Gap;
  } else {
    r.field = parse_field(text, lhs);
  }
  r.limit = parse_size(text, rhs);
  return r;
}

std::vector<AlertRule> default_alert_rules() {
  std::vector<AlertRule> rules;
  for (const char* t : {"driver>22000MB", "moves:ooms", "moves:alloc_retries", "shapes-rising"})
    rules.push_back(parse_alert_rule(t));
  return rules;
}

void AlertEngine::add_rule(AlertRule rule) {
  rules_.push_back(std::move(rule));
  for (auto& h : ranks_) {
    h.active.resize(rules_.size(), 0);
    h.counter.resize(rules_.size(), -1);
  }
}

AlertEngine::History& AlertEngine::at(int rank) {
  if (rank < 0) rank = 0;
  if (static_cast<std::size_t>(rank) >= ranks_.size()) ranks_.resize(static_cast<std::size_t>(rank) + 1);
  History& h = ranks_[static_cast<std::size_t>(rank)];
  h.active.resize(rules_.size(), 0);
  h.counter.resize(rules_.size(), -1);
  return h;
}

std::string AlertEngine::who(int rank) {
  const History& h = at(rank);
  return "rank " + std::to_string(h.hello_rank >= 0 ? h.hello_rank : rank);
}

void AlertEngine::fire(int rank, std::size_t rule, std::int64_t t, std::int64_t fig,
                       const std::string& message) {
  alerts_.push_back(Alert{rules_[rule].text, rank, t, fig,
                          who(rank) + ": " + message + " (rule " + rules_[rule].text + ")"});
  if (alerts_.size() > 100'000) alerts_.erase(alerts_.begin(), alerts_.begin() + 50'000);
}

void AlertEngine::on_hello(int rank, const Hello& hello) { at(rank).hello_rank = hello.rank; }

void AlertEngine::on_sample(int rank, const Sample& s) {
  History& h = at(rank);
  const bool has_step = s.has(Field::Step);
  if (has_step && (h.by_step.empty() || s.get(Field::Step) >= h.by_step.back().first + 10 ||
                   s.get(Field::Step) < h.by_step.back().first)) {
    if (!h.by_step.empty() && s.get(Field::Step) < h.by_step.back().first) h.by_step.clear();  // restarted
    h.by_step.emplace_back(s.get(Field::Step), s);
    const std::int64_t keep = s.get(Field::Step) - 2000;
    if (h.by_step.front().first < keep)
      h.by_step.erase(h.by_step.begin(), std::find_if(h.by_step.begin(), h.by_step.end(),
                                                      [&](const auto& p) { return p.first >= keep; }));
  }
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const AlertRule& r = rules_[i];
    bool cond = false;
    std::int64_t fig = 0;
    std::string msg;
    switch (r.kind) {
      case AlertRule::Kind::Threshold:
        if (!s.has(r.field)) continue;
        fig = s.get(r.field);
        cond = fig > r.limit;
        msg = std::string(field_name(r.field)) + " " + figure(r.field, fig) + " is over " +
              figure(r.field, r.limit);
        break;
      case AlertRule::Kind::Gap: {
        const Field top = s.has(Field::Driver) ? Field::Driver : Field::DeviceUsed;
        if (!s.has(top) || !s.has(Field::Allocated)) continue;
        fig = s.get(top) - s.get(Field::Allocated);
        cond = fig > r.limit;
        msg = std::string(field_name(top)) + " " + figure(top, s.get(top)) + " is " + figure(top, fig) +
              " above allocated " + figure(Field::Allocated, s.get(Field::Allocated)) + " (limit " +
              figure(top, r.limit) + ")";
        break;
      }
      case AlertRule::Kind::Moves: {
        if (!s.has(r.field)) continue;
        const std::int64_t v = s.get(r.field);
        const std::int64_t before = h.counter[i];
        h.counter[i] = v;
        if (before >= 0 && v > before)
          fire(rank, i, s.t, v,
               std::string(field_name(r.field)) + " moved from " + format_thousands(before) + " to " +
                   format_thousands(v));
        continue;
      }
      case AlertRule::Kind::Growth: {
        if (!has_step || !s.has(r.field) || h.by_step.empty()) continue;
        const std::int64_t step = s.get(Field::Step);
        const auto it = std::find_if(h.by_step.begin(), h.by_step.end(), [&](const auto& p) {
          return p.first >= step - 1000 && p.second.has(r.field);
        });
        if (it == h.by_step.end() || step - it->first < 100) continue;
        const double per = static_cast<double>(s.get(r.field) - it->second.get(r.field)) * 1000.0 /
                           static_cast<double>(step - it->first);
        fig = static_cast<std::int64_t>(per);
        cond = fig > r.limit;
        msg = std::string(field_name(r.field)) + " grows " + figure(r.field, fig) +
              " per 1,000 steps (over steps " + format_thousands(it->first) + " to " +
              format_thousands(step) + "; limit " + figure(r.field, r.limit) + ")";
        break;
      }
      case AlertRule::Kind::ShapesRising:
      case AlertRule::Kind::EventKind:
      case AlertRule::Kind::Forecast:
        continue;
    }
    if (cond && !h.active[i]) fire(rank, i, s.t, fig, msg);
    h.active[i] = cond ? 1 : 0;
  }
  h.last = s;
  h.has_last = true;
}

void AlertEngine::on_event(int rank, const Event& e) {
  for (std::size_t i = 0; i < rules_.size(); ++i)
    if (rules_[i].kind == AlertRule::Kind::EventKind && rules_[i].event_kind == e.kind)
      fire(rank, i, e.t, 1,
           e.kind + " event: " + (e.message.empty() ? "(no message)" : e.message) +
               (e.path.empty() ? "" : " [" + e.path + "]"));
}

void AlertEngine::on_forecast(int rank, const Forecast& f) {
  History& h = at(rank);
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].kind != AlertRule::Kind::Forecast) continue;
    const bool cond = f.state == ForecastState::Oom && f.oom_at_step && f.at_step >= 0 &&
                      *f.oom_at_step - f.at_step <= rules_[i].limit;
    if (cond && !h.active[i]) {
      const std::int64_t left = *f.oom_at_step - f.at_step;
      fire(rank, i, f.t, left,
           "forecast to run out of memory in " + format_thousands(left) + " steps, at step " +
               format_thousands(*f.oom_at_step) + " (range " +
               format_thousands(f.early_step.value_or(*f.oom_at_step)) + " to " +
               format_thousands(f.late_step.value_or(*f.oom_at_step)) + "; " + field_name(f.figure) +
               " vs the " + f.limit_name + " " + figure(f.figure, f.limit_bytes) + "): " + f.driver +
               " [derived]");
    }
    h.active[i] = cond ? 1 : 0;
  }
}

void AlertEngine::on_shapes(int rank, const Shapes& sh) {
  History& h = at(rank);
  // Position: the optimizer step when the trainer reports one, else seconds (then "1,000 steps" = 1,000 s).
  const bool steps = h.has_last && h.last.has(Field::Step);
  const std::int64_t pos = steps ? h.last.get(Field::Step) : sh.t / 1'000'000'000;
  h.shapes.emplace_back(pos, sh.distinct);
  if (h.shapes.size() > 4096) h.shapes.erase(h.shapes.begin(), h.shapes.begin() + 2048);
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].kind != AlertRule::Kind::ShapesRising) continue;
    const auto it =
        std::find_if(h.shapes.begin(), h.shapes.end(), [&](const auto& p) { return p.first >= pos - 1000; });
    const std::int64_t grew = sh.distinct - it->second;
    const bool cond = grew >= rules_[i].limit;
    if (cond && !h.active[i])
      fire(rank, i, sh.t, sh.distinct,
           "distinct input shapes still rising: " + format_thousands(sh.distinct) + " seen, " +
               format_thousands(grew) + " new over the last " + format_thousands(pos - it->first) +
               (steps ? " steps" : " s"));
    h.active[i] = cond ? 1 : 0;
  }
}

}  // namespace oomscope::live
