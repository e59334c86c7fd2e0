#pragma once
// Text and JSON renderings of a live session for `oomscope-cli watch` and `replay`.

#include <cstdio>
#include <mutex>
#include <string>

#include "core/live/client/alerts.h"
#include "core/live/client/forecast.h"
#include "core/live/client/store.h"

namespace oomscope::cli {

// The rank table: one row per endpoint with its status and latest figures, least headroom (closest to
// OOM) first.
std::string live_table(const live::Store& store);
// The same as one JSON line (watch --json --table):
// {"type":"table","t":...,"ranks":[{"index","label","endpoint","status"
// ("up", "down", "waiting"),"reason","samples","rank","host","capacity","last":{t, fields...},
// "headroom","shapes","forecast"}]}, in the same order (fields a rank lacks are left out; forecast as in
// forecast_format.h).
std::string live_table_json(const live::Store& store);
// Up to `max` most recent alerts, newest last.
std::string live_alerts_text(const live::AlertEngine& alerts, std::size_t max);
// A recording's (or a finished watch's) summary: per rank its agent, span, peaks, events and gaps.
std::string live_summary(const live::Store& store, const live::AlertEngine& alerts);

// Prints everything a source says as JSON lines, each a protocol v1 line with "rank" (the endpoint index)
// added; connection changes as {"type":"status"}, skipped lines as {"type":"bad_line"}, alerts as
// {"type":"alert"}. Thread-safe.
class JsonLinePrinter final : public live::LiveSink {
 public:
  explicit JsonLinePrinter(std::FILE* out) : out_(out) {}
  void on_endpoint(int rank, const std::string& endpoint) override;
  void on_hello(int rank, const live::Hello& hello) override;
  void on_sample(int rank, const live::Sample& sample) override;
  void on_event(int rank, const live::Event& event) override;
  void on_shapes(int rank, const live::Shapes& shapes) override;
  void on_disconnected(int rank, std::int64_t t, const std::string& reason) override;
  void on_connected(int rank, std::int64_t t) override;
  void on_bad_line(int rank, std::int64_t t, const std::string& error) override;
  void alert(const live::Alert& alert);
  // {"rank":N,"type":"forecast",...} (forecast_format.h).
  void forecast(int rank, const live::Forecast& forecast);

 private:
  void emit(int rank, const std::string& line);
  std::FILE* out_;
  std::mutex mutex_;
};

// Forwards every call to two sinks (the session and a printer).
class TeeSink final : public live::LiveSink {
 public:
  TeeSink(live::LiveSink& a, live::LiveSink& b) : a_(a), b_(b) {}
  void on_endpoint(int r, const std::string& e) override {
    a_.on_endpoint(r, e);
    b_.on_endpoint(r, e);
  }
  void on_hello(int r, const live::Hello& h) override {
    a_.on_hello(r, h);
    b_.on_hello(r, h);
  }
  void on_sample(int r, const live::Sample& s) override {
    a_.on_sample(r, s);
    b_.on_sample(r, s);
  }
  void on_event(int r, const live::Event& e) override {
    a_.on_event(r, e);
    b_.on_event(r, e);
  }
  void on_shapes(int r, const live::Shapes& s) override {
    a_.on_shapes(r, s);
    b_.on_shapes(r, s);
  }
  void on_disconnected(int r, std::int64_t t, const std::string& m) override {
    a_.on_disconnected(r, t, m);
    b_.on_disconnected(r, t, m);
  }
  void on_connected(int r, std::int64_t t) override {
    a_.on_connected(r, t);
    b_.on_connected(r, t);
  }
  void on_bad_line(int r, std::int64_t t, const std::string& m) override {
    a_.on_bad_line(r, t, m);
    b_.on_bad_line(r, t, m);
  }

 private:
  live::LiveSink& a_;
  live::LiveSink& b_;
};

}  // namespace oomscope::cli
