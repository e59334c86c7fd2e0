// Prometheus as a live source: the thread that runs a PromReader (see prom_source.h).

#include "core/live/prom/prom_source.h"

#include <chrono>
#include <condition_variable>

#include "core/live/prom/prom_metrics.h"
#include "core/util/error.h"

namespace oomscope::live {

using prom_detail::now_ms;

PrometheusSource::PrometheusSource(std::string server, LiveSink& sink, PromOptions options)
    : server_(std::move(server)), sink_(sink), options_(std::move(options)) {
  options_.selector = normalise_selector(options_.selector);
  status_.server = server_;
  status_.phase = "connecting";
}

PrometheusSource::~PrometheusSource() { stop(); }

void PrometheusSource::start() {
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

void PrometheusSource::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  {
    std::lock_guard lock(mutex_);
    if (reader_) reader_->cancel();
  }
  thread_.join();
  std::lock_guard lock(mutex_);
  status_.phase = "stopped";
}

PromStatus PrometheusSource::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::vector<PromRankInfo> PrometheusSource::ranks() const {
  std::lock_guard lock(mutex_);
  return ranks_;
}

void PrometheusSource::set(const std::string& phase, const std::string& error) {
  std::lock_guard lock(mutex_);
  if (!phase.empty()) status_.phase = phase;
  status_.error = error;
}

void PrometheusSource::run(std::stop_token stop) {
  std::mutex wait_mutex;
  std::condition_variable_any wake;
  auto sleep_for = [&](int ms) {
    std::unique_lock lock(wait_mutex);
    wake.wait_for(lock, stop, std::chrono::milliseconds(ms), [] { return false; });
  };
  std::unique_ptr<PromReader> reader;
  try {
    reader = std::make_unique<PromReader>(server_, options_, sink_);
    reader->set_stop_token(stop);
  } catch (const Error& e) {
    set("stopped", e.what());
    return;
  }
  {
    std::lock_guard lock(mutex_);
    reader_ = reader.get();
  }
  auto publish = [&] {
    std::lock_guard lock(mutex_);
    ranks_ = reader->ranks();
    status_.ranks = ranks_.size();
    status_.requests = reader->requests();
    status_.bytes = reader->bytes_read();
    status_.step_ms = reader->step_ms();
  };
  bool history = false;
  while (!stop.stop_requested()) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (!history) {
        set("reading history", {});
        reader->discover(now_ms());
        reader->read_history(now_ms());
        history = true;
        std::lock_guard lock(mutex_);
        status_.history_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      reader->poll(now_ms());
      publish();
      set("following", {});
    } catch (const Cancelled&) {
      break;
    } catch (const Error& e) {
      if (stop.stop_requested()) break;
      publish();
      set({}, e.what());
    }
    const auto spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    sleep_for(std::max(50, options_.poll_ms - static_cast<int>(spent.count())));
  }
  std::lock_guard lock(mutex_);
  reader_ = nullptr;
}

}  // namespace oomscope::live
