#pragma once
// Alert rules over a live session, written as the user types them (`--alert RULE`):
//   FIELD>SIZE             threshold, e.g. driver>22000MB, device_used>70GiB, alloc_retries>0
//   growth:FIELD>SIZE      growth per 1,000 optimizer steps, e.g. growth:driver>500MB
//   moves:FIELD            a counter that moves, e.g. moves:ooms, moves:alloc_retries
//   gap>SIZE               driver (MPS) or device_used minus allocated, e.g. gap>4GB
//   shapes-rising[:N]      distinct input shapes grew by at least N (default 50) over the last 1,000 steps
//   event:KIND             each event of that kind, e.g. event:oom
//   forecast:STEPS         the rank is forecast to run out of memory within STEPS optimizer steps
//                          (forecast.h; evaluated when LiveSession updates the rank's forecast)
// SIZE is a number with an optional unit (B, KB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, TiB).
// A rule fires once when its condition becomes true and again only after it was false (moves and event
// rules fire on every move). Each alert names the rule, the rank and the figure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct Forecast;

struct AlertRule {
  enum class Kind { Threshold, Growth, Moves, Gap, ShapesRising, EventKind, Forecast };
  Kind kind = Kind::Threshold;
  Field field = Field::Driver;
  std::int64_t limit = 0;
  std::string event_kind;
  std::string text;  // as written
};

// Throws oomscope::Error(InvalidArgument) saying what is wrong with the rule text.
AlertRule parse_alert_rule(std::string_view text);
// The rules a GUI session starts with: driver>22000MB (the reference's restart threshold), moves:ooms,
// moves:alloc_retries, shapes-rising. (event:oom would repeat moves:ooms for agents that send both.)
std::vector<AlertRule> default_alert_rules();

struct Alert {
  std::string rule;  // the rule's text
  int rank = 0;      // endpoint index
  std::int64_t t = 0;
  std::int64_t figure = 0;  // the value that fired it (bytes, count, bytes per 1,000 steps, steps left)
  std::string message;      // one sentence naming rule, rank and figure
};

class AlertEngine final : public LiveSink {
 public:
  void add_rule(AlertRule rule);
  const std::vector<AlertRule>& rules() const { return rules_; }
  const std::vector<Alert>& alerts() const { return alerts_; }

  void on_endpoint(int, const std::string&) override {}
  void on_hello(int rank, const Hello& hello) override;
  void on_sample(int rank, const Sample& sample) override;
  void on_event(int rank, const Event& event) override;
  void on_shapes(int rank, const Shapes& shapes) override;
  void on_disconnected(int, std::int64_t, const std::string&) override {}
  void on_connected(int, std::int64_t) override {}
  void on_bad_line(int, std::int64_t, const std::string&) override {}
  // A new forecast for the rank (forecast:STEPS rules).
  void on_forecast(int rank, const Forecast& forecast);

 private:
  struct History {                                              // per rank
    std::vector<std::pair<std::int64_t, Sample>> by_step;       // (step, sample), thinned to ~every 10 steps
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes;  // (step or t/1e9 s, distinct)
    Sample last{};
    bool has_last = false;
    std::vector<char> active;           // per rule
    std::vector<std::int64_t> counter;  // per rule: last counter value seen (moves)
    int hello_rank = -1;
  };
  History& at(int rank);
  void fire(int rank, std::size_t rule, std::int64_t t, std::int64_t figure, const std::string& message);
  std::string who(int rank);

  std::vector<AlertRule> rules_;
  std::vector<History> ranks_;
  std::vector<Alert> alerts_;
};

}  // namespace oomscope::live
