#pragma once
// A live session: the Store behind a mutex, with an optional Recorder and the alert rules fed from the
// same calls. Sources (a LiveClient or a replayed recording) write to it from their thread; views read
// it through read(), and poll version() to know when to redraw.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "core/live/client/alerts.h"
#include "core/live/client/forecast_tracker.h"
#include "core/live/client/recorder.h"
#include "core/live/client/store.h"

namespace oomscope::live {

class LiveSession final : public LiveSink {
 public:
  LiveSession() = default;
  ~LiveSession() override;

  void on_endpoint(int rank, const std::string& endpoint) override;
  void on_hello(int rank, const Hello& hello) override;
  void on_sample(int rank, const Sample& sample) override;
  void on_event(int rank, const Event& event) override;
  void on_shapes(int rank, const Shapes& shapes) override;
  void on_disconnected(int rank, std::int64_t t, const std::string& reason) override;
  void on_connected(int rank, std::int64_t t) override;
  void on_bad_line(int rank, std::int64_t t, const std::string& error) override;

  // Starts recording to `path` (throws oomscope::Error when it cannot be created). What the store holds
  // already (endpoints, hellos, samples, events) is written first, so the file stands on its own.
  void start_recording(const std::string& path);
  void stop_recording();
  bool recording() const;
  std::string recording_path() const;

  void add_rule(AlertRule rule);
  // Called (under the session lock, on the source's thread) for each alert that fires.
  void set_alert_callback(std::function<void(const Alert&)> callback);
  // Called (under the session lock, on the source's thread) each time a rank's forecast is recomputed
  // (at most once per second of the rank's sample time; forecast_tracker.h).
  void set_forecast_callback(std::function<void(int rank, const Forecast&)> callback);

  template <class F>
  auto read(F&& f) const {
    std::lock_guard lock(mutex_);
    return f(store_, alerts_);
  }
  // The same, with the forecasts as they stand.
  template <class F>
  auto read_forecasts(F&& f) const {
    std::lock_guard lock(mutex_);
    return f(store_, forecasts_);
  }
  // The store, the alerts and the forecasts at once (the Live page's refresh).
  template <class F>
  auto read_all(F&& f) const {
    std::lock_guard lock(mutex_);
    return f(store_, alerts_, forecasts_);
  }
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  template <class F>
  void apply(F&& f, int sample_rank = -1);

  mutable std::mutex mutex_;
  Store store_;
  AlertEngine alerts_;
  ForecastTracker forecasts_;
  std::function<void(int, const Forecast&)> forecast_callback_;
  std::unique_ptr<Recorder> recorder_;
  std::function<void(const Alert&)> alert_callback_;
  std::atomic<std::uint64_t> version_{0};
};

}  // namespace oomscope::live
