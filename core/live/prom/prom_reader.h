#pragma once
// Prometheus as a live source, one call at a time: PromReader reads the ranks of a job from the Prometheus
// server that scrapes their agents' /metrics and feeds them into a LiveSink (session, store, alerts), as a
// direct attach does. discover() lists the ranks whose series match the selector in the window,
// read_history() reads the window with one query_range per metric for all ranks (the step chosen so no
// series has more than max_points points), poll() reads the raw samples scraped since the previous call (one
// instant query of a range selector for all metrics) and the `up` of the ranks' targets. PrometheusSource
// (prom_source.h) runs one on its own thread. See docs/prometheus-source.md.

#include <cstdint>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/live/prom/prom_api.h"
#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct PromOptions {
  std::string selector;              // label matchers without braces, e.g. job="train" (may be empty)
  std::int64_t since_s = 600;        // history read at start; 0 reads none
  int poll_ms = 1000;                // follow: one poll per interval (the scrape interval is a good choice)
  int timeout_ms = 10'000;           // per HTTP request
  std::int64_t max_points = 11'000;  // per series and query_range
  int stale_after_ms = 0;            // a rank without a new sample for this long is down (0: 3 scrape
                                     // intervals as observed, at least 5 s)
  bool dcgm = true;                  // use DCGM_FI_DEV_FB_USED of the ranks' hosts as their device-used line
};

// What a rank is on the Prometheus side (for the table and for drill-down).
struct PromRankInfo {
  std::string job, instance, host, device, version, backend;
  std::string stats_endpoint;  // from oomscope_agent_info: HOST:PORT of the agent's stats socket, or ""
  int rank = -1, local_rank = -1, gpu = -1;  // gpu: the DCGM `gpu` label this rank is matched to
  bool up = false;
};

class PromReader {
 public:
  PromReader(std::string server, PromOptions options, LiveSink& sink);

  // Each throws oomscope::Error (naming the server) when Prometheus cannot be asked or refuses.
  void discover(std::int64_t now_ms);
  void read_history(std::int64_t now_ms);
  void poll(std::int64_t now_ms);
  void cancel();  // from another thread: breaks the requests in flight
  // Checked before each request: a stop request makes the next call throw oomscope::Cancelled.
  void set_stop_token(const std::stop_token& stop);

  const std::vector<PromRankInfo>& ranks() const { return info_; }
  std::int64_t step_ms() const { return step_ms_; }
  std::uint64_t requests() const;
  std::uint64_t bytes_read() const;
  const std::string& selector() const { return options_.selector; }

 private:
  struct State {
    std::int64_t last_t = 0;  // ms of the last sample handed on
    double shapes = -1, restarts = -1;
    std::int64_t dcgm_t = 0;
    double dcgm_mib = -1;
    int connected = -1;  // -1 not known yet, 0 down, 1 up
    bool hello_sent = false;
    std::int64_t capacity = 0;
  };
  int rank_for(const PromSeries& s);  // creates the rank when new
  void absorb_info(const PromSeries& s, int index);
  void send_hello(int index);
  std::string all_metrics_regex() const;
  std::string matchers(const std::string& extra) const;
  void set_connected(int index, bool up, std::int64_t t_ms, const std::string& why);

  std::string server_;
  PromOptions options_;
  LiveSink& sink_;
  PromApi api_;
  std::vector<std::unique_ptr<PromApi>> pool_;  // more connections: history queries run in parallel
  std::map<std::string, int> by_key_;
  std::vector<PromRankInfo> info_;
  std::vector<State> state_;
  std::int64_t step_ms_ = 0;
  std::int64_t scrape_ms_ = 0;  // observed scrape interval
  std::int64_t last_poll_ms_ = 0;
  bool discovered_ = false;  // hellos wait for discovery, so that they carry the world size
};

}  // namespace oomscope::live
