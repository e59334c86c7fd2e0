#pragma once
// An agent's figures as a Prometheus text exposition (format 0.0.4), what `/metrics` serves
// (docs/prometheus.md). A figure the agent does not have is left out, never written as 0. Every series
// carries the labels rank, local_rank (when known), host, device and job (when known).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/live/protocol/protocol.h"

namespace oomscope::live {

struct MetricLabels {
  int rank = 0;
  std::optional<int> local_rank;
  std::string host;
  std::string device;  // "cuda:0", "mps", "cpu", ...
  std::string job;     // empty: unknown, the label is left out
};

// What an agent knows at scrape time.
struct MetricsState {
  std::string agent = "cpp";  // the agent_info `agent` label
  std::string backend;        // the hello's backend
  std::int64_t total_bytes = 0;
  std::optional<Sample> latest;                 // the last sample taken
  std::uint64_t dropped = 0;                    // lines dropped (a slow client's queue was full)
  std::map<std::string, std::uint64_t> events;  // events posted, by kind
  std::optional<std::int64_t> distinct_shapes;  // absent until the trainer posted shapes
  std::string stats_endpoint;                   // HOST:PORT or unix:/path
};

std::string escape_label_value(std::string_view value);
std::string render_metrics(const MetricsState& state, const MetricLabels& labels);

}  // namespace oomscope::live
