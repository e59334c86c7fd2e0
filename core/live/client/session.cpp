// The live session fan-out (see session.h).

#include "core/live/client/session.h"

namespace oomscope::live {

LiveSession::~LiveSession() { stop_recording(); }

template <class F>
void LiveSession::apply(F&& f, int sample_rank) {
  std::lock_guard lock(mutex_);
  f(static_cast<LiveSink&>(store_));
  if (recorder_) f(static_cast<LiveSink&>(*recorder_));
  const std::size_t before = alerts_.alerts().size();
  f(static_cast<LiveSink&>(alerts_));
  if (sample_rank >= 0 && forecasts_.update(store_, sample_rank)) {  // after a sample: the forecast
    const Forecast& forecast = *forecasts_.latest(sample_rank);
    alerts_.on_forecast(sample_rank, forecast);
    if (forecast_callback_) forecast_callback_(sample_rank, forecast);
  }
  if (alert_callback_)
    for (std::size_t i = before; i < alerts_.alerts().size(); ++i) alert_callback_(alerts_.alerts()[i]);
  version_.fetch_add(1, std::memory_order_release);
}

void LiveSession::on_endpoint(int rank, const std::string& endpoint) {
  apply([&](LiveSink& s) { s.on_endpoint(rank, endpoint); });
}
void LiveSession::on_hello(int rank, const Hello& hello) {
  apply([&](LiveSink& s) { s.on_hello(rank, hello); });
}
void LiveSession::on_sample(int rank, const Sample& sample) {
  apply([&](LiveSink& s) { s.on_sample(rank, sample); }, rank);
}
void LiveSession::on_event(int rank, const Event& event) {
  {
    std::lock_guard lock(mutex_);
    if (store_.has_event(rank, event)) return;  // repeated by the agent after a reconnect
  }
  apply([&](LiveSink& s) { s.on_event(rank, event); });
}
void LiveSession::on_shapes(int rank, const Shapes& shapes) {
  apply([&](LiveSink& s) { s.on_shapes(rank, shapes); });
}
void LiveSession::on_disconnected(int rank, std::int64_t t, const std::string& reason) {
  apply([&](LiveSink& s) { s.on_disconnected(rank, t, reason); });
}
void LiveSession::on_connected(int rank, std::int64_t t) {
  apply([&](LiveSink& s) { s.on_connected(rank, t); });
}
void LiveSession::on_bad_line(int rank, std::int64_t t, const std::string& error) {
  apply([&](LiveSink& s) { s.on_bad_line(rank, t, error); });
}

void LiveSession::start_recording(const std::string& path) {
  auto rec = std::make_unique<Recorder>(path);
  std::lock_guard lock(mutex_);
  const auto& ranks = store_.ranks();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = static_cast<int>(i);
    const RankSeries& s = ranks[i];
    if (!s.endpoint.empty()) rec->on_endpoint(r, s.endpoint);
    if (s.hello) rec->on_hello(r, *s.hello);
    for (const Sample& x : s.samples) rec->on_sample(r, x);
    for (const Event& e : s.events) rec->on_event(r, e);
    for (const Shapes& x : s.shapes) rec->on_shapes(r, x);
    if (s.connected) rec->on_connected(r, now_unix_ns());
  }
  recorder_ = std::move(rec);
}

void LiveSession::stop_recording() {
  std::unique_ptr<Recorder> rec;
  {
    std::lock_guard lock(mutex_);
    rec = std::move(recorder_);
  }
  if (rec) rec->close();
}

bool LiveSession::recording() const {
  std::lock_guard lock(mutex_);
  return recorder_ != nullptr;
}

std::string LiveSession::recording_path() const {
  std::lock_guard lock(mutex_);
  return recorder_ ? recorder_->path() : std::string();
}

void LiveSession::add_rule(AlertRule rule) {
  std::lock_guard lock(mutex_);
  alerts_.add_rule(std::move(rule));
}

void LiveSession::set_forecast_callback(std::function<void(int, const Forecast&)> callback) {
  std::lock_guard lock(mutex_);
  forecast_callback_ = std::move(callback);
}

void LiveSession::set_alert_callback(std::function<void(const Alert&)> callback) {
  std::lock_guard lock(mutex_);
  alert_callback_ = std::move(callback);
}

}  // namespace oomscope::live
