#pragma once
// What `oomscope-cli watch` attaches to, read from its option values: agent endpoints or one Prometheus
// server, with the client's and the Prometheus source's settings and the duration. The command and the MCP
// `live` tool (app/cli/mcp_live_tool.cpp) read the same values here, so both accept and refuse alike.

#include <string>
#include <vector>

#include "core/live/client/client.h"
#include "core/live/prom/prom_source.h"
#include "core/live/protocol/endpoint.h"

namespace oomscope::cli {

// The option values as typed (empty: not given).
struct WatchSourceOptions {
  std::vector<std::string> sources;  // HOST:PORT, unix:PATH, or one prometheus:http://HOST:9090
  std::string duration, token, interval, stall, selector, since, poll;
};

struct WatchSources {
  std::vector<live::Endpoint> endpoints;
  std::string prometheus;  // the server's base URL; empty with endpoints
  live::PromOptions prom;
  live::ClientOptions client;
  double duration_s = 0;  // 0: until interrupted
};

// Throws UsageError with the command's words for any bad value (the token defaults to $OOMSCOPE_TOKEN).
WatchSources parse_watch_sources(const WatchSourceOptions& o);

}  // namespace oomscope::cli
