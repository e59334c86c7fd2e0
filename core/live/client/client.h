#pragma once
// The debugger side of live attach: one thread that connects to one or many agents (one endpoint per
// rank), reads their lines, and hands what they say to a LiveSink. A connection that drops, or that never
// came up, is retried with a backoff (250 ms doubling to 2 s); the store marks the gap. A peer whose first
// line is not a hello is not an agent and is dropped with that reason; one that says nothing for the stall
// timeout is dropped and retried. Sink calls come from the client thread.

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/live/protocol/endpoint.h"
#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct ClientOptions {
  std::string token;    // sent as {"type":"auth"} first when not empty
  int interval_ms = 0;  // sent as {"type":"subscribe"} when > 0
  int stall_timeout_ms = 10'000;
  int min_backoff_ms = 250;
  int max_backoff_ms = 2'000;
};

struct ClientCounters {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> lines{0};
  std::atomic<std::uint64_t> bad_lines{0};
  std::atomic<std::uint64_t> connects{0};
};

class LiveClient {
 public:
  LiveClient(std::vector<Endpoint> endpoints, LiveSink& sink, ClientOptions options = {});
  ~LiveClient();
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  void start();
  void stop();  // joins the thread; no sink call after it returns
  const ClientCounters& counters() const { return counters_; }
  const std::vector<Endpoint>& endpoints() const { return endpoints_; }

 private:
  void run(const std::stop_token& stop);

  std::vector<Endpoint> endpoints_;
  LiveSink& sink_;
  ClientOptions options_;
  ClientCounters counters_;
  int wake_[2] = {-1, -1};
  std::jthread thread_;
};

}  // namespace oomscope::live
