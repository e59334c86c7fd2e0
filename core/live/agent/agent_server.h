#pragma once
// The C++ agent (torch-free): serves protocol v1 from inside a trainer. It listens on 127.0.0.1 by
// default or on a Unix socket (mode 0600); listening on any other address needs a token, which every
// client must send first ({"type":"auth"}); a wrong or missing token closes the connection and the reason
// is logged. Samples are taken every interval from pluggable StatsSources plus the step counters the
// trainer sets. Writing never blocks the trainer: each client has a bounded queue, and a line that does not
// fit is dropped and counted.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/live/protocol/endpoint.h"
#include "core/live/protocol/prometheus_text.h"
#include "core/live/protocol/protocol.h"

namespace oomscope::live {

// Fills the fields it knows into a sample. Called on the agent's thread; must be quick and must not throw
// (exceptions are caught, counted and logged once).
class StatsSource {
 public:
  virtual ~StatsSource() = default;
  virtual std::string name() const = 0;
  virtual void fill(Sample& sample) = 0;
};

struct AgentOptions {
  Endpoint listen{false, "127.0.0.1", 0, {}};  // port 0: any free port (see AgentServer::port)
  std::string token;                           // required when `listen` is not loopback
  int interval_ms = 100;
  std::size_t max_queue_bytes = 256 * 1024;  // per client
  int auth_timeout_ms = 5'000;
  Hello hello;                                  // pid and host are filled in when left empty
  std::function<void(const std::string&)> log;  // default: stderr, prefixed "oomscope-agent: "
  // Prometheus /metrics (docs/prometheus.md) on this HOST:PORT (port 0 picks one), served from its own
  // threads; not loopback needs `token` (sent as a Bearer token). While it serves, the agent samples every
  // interval even with no client attached, so a scrape reads the latest sample.
  std::optional<Endpoint> metrics;
  std::string job;                // the `job` label; empty: $OOMSCOPE_JOB, else left out
  std::optional<int> local_rank;  // default: $LOCAL_RANK, else the rank when world_size is 1
  std::string device_label;       // the `device` label ("cuda:0"); default: the hello's backend
};

struct AgentCounters {
  std::atomic<std::uint64_t> clients{0};  // connected now
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> samples{0};
  std::atomic<std::uint64_t> dropped_lines{0};  // queue full (a slow client)
  std::atomic<std::uint64_t> auth_failures{0};
  std::atomic<std::uint64_t> source_errors{0};
};

bool tokens_equal(std::string_view a, std::string_view b) noexcept;  // constant time in the longer length

class AgentServer {
 public:
  explicit AgentServer(AgentOptions options);
  ~AgentServer();
  AgentServer(const AgentServer&) = delete;
  AgentServer& operator=(const AgentServer&) = delete;

  void add_source(std::unique_ptr<StatsSource> source);  // before start()
  // Binds and starts serving. Throws oomscope::Error(InvalidArgument) for a non-loopback address without
  // a token, Error(Io) when it cannot listen.
  void start();
  void stop();

  int port() const { return port_; }
  Endpoint endpoint() const;

  // From the trainer's thread; cheap (atomics or a short lock).
  void set_step(std::int64_t step, std::int64_t micro = -1);
  void post_event(Event event);  // t is filled in when 0
  // t is filled in when 0. The shapes in `fresh` are also kept (up to 4,096) for clients that attach later.
  void post_shapes(Shapes shapes);
  const AgentCounters& counters() const { return counters_; }
  // The /metrics endpoint (HOST:PORT) once started with options.metrics, else empty.
  std::string metrics_endpoint() const;
  // What /metrics serves now.
  MetricsState metrics_state() const;

 private:
  struct Client;
  void run(std::stop_token stop);
  void log(const std::string& message) const;

  AgentOptions options_;
  std::vector<std::unique_ptr<StatsSource>> sources_;
  std::vector<bool> source_failed_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<std::int64_t> step_{-1}, micro_{-1};
  mutable std::mutex pending_mutex_;
  std::vector<std::string> pending_;  // event/shapes lines to send
  // What a client that connects later gets after the hello: the last 64 events and the shapes so far.
  std::vector<std::string> recent_events_;
  Shapes shapes_so_far_;
  AgentCounters counters_;
  mutable std::mutex latest_mutex_;
  std::optional<Sample> latest_;                      // the last sample taken (for /metrics)
  std::map<std::string, std::uint64_t> event_kinds_;  // events posted, by kind (at most 32 kinds)
  MetricLabels labels_;
  std::unique_ptr<class MetricsHttpServer> metrics_;
  std::jthread thread_;
};

}  // namespace oomscope::live
