#pragma once
// Prometheus as a live source: the ranks of a job, read from the Prometheus server that scrapes their
// agents' /metrics, fed into the same LiveSink (session, store, alerts) as a direct attach.
//
// PrometheusSource runs a PromReader (prom_reader.h: the work, synchronously) on its own thread: history
// first, then a poll every poll interval, until stopped (a request in flight is cancelled). See
// docs/prometheus-source.md.

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/live/prom/prom_reader.h"
#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct PromStatus {
  std::string server;
  std::string phase;  // "connecting", "reading history", "following", "stopped"
  std::string error;  // the last error (cleared by the next successful poll)
  std::size_t ranks = 0;
  std::uint64_t requests = 0, bytes = 0;
  double history_seconds = 0;  // wall time of discover + read_history
  std::int64_t step_ms = 0;    // the history step used
};

class PrometheusSource {
 public:
  PrometheusSource(std::string server, LiveSink& sink, PromOptions options = {});
  ~PrometheusSource();
  PrometheusSource(const PrometheusSource&) = delete;
  PrometheusSource& operator=(const PrometheusSource&) = delete;

  void start();
  void stop();  // cancels a request in flight and joins; no sink call after it returns
  PromStatus status() const;
  std::vector<PromRankInfo> ranks() const;

 private:
  void run(std::stop_token stop);
  void set(const std::string& phase, const std::string& error);

  std::string server_;
  LiveSink& sink_;
  PromOptions options_;
  mutable std::mutex mutex_;
  PromStatus status_;
  std::vector<PromRankInfo> ranks_;
  PromReader* reader_ = nullptr;  // while run() lives; guarded by mutex_
  std::jthread thread_;
};

}  // namespace oomscope::live
