// The sources of `oomscope-cli watch` from its option values (watch_sources.h).

#include "app/cli/watch_sources.h"

#include <algorithm>
#include <cstdlib>

#include "app/cli/command.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

double parse_number(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || v < 0)
    throw UsageError{option + " needs a non-negative number, not '" + value + "'"};
  return v;
}

// "90s", "10m", "1h", "2d" or a number of seconds.
std::int64_t parse_duration_s(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  const std::string unit = end ? end : "";
  const double scale = unit.empty() || unit == "s" ? 1
                       : unit == "m"               ? 60
                       : unit == "h"               ? 3600
                       : unit == "d"               ? 86400
                                                   : -1;
  if (value.empty() || end == value.c_str() || scale < 0 || v < 0)
    throw UsageError{option + " needs a duration like 90s, 10m, 1h or 2d, not '" + value + "'"};
  return static_cast<std::int64_t>(v * scale);
}

}  // namespace

WatchSources parse_watch_sources(const WatchSourceOptions& o) {
  WatchSources w;
  std::vector<live::Endpoint>& endpoints = w.endpoints;
  std::string& prometheus = w.prometheus;
  live::PromOptions& prom = w.prom;
  live::ClientOptions& options = w.client;
  double& duration = w.duration_s;
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) options.token = t;
  try {
    if (!o.duration.empty()) duration = parse_number("--duration", o.duration);
    if (!o.token.empty()) options.token = o.token;
    if (!o.stall.empty())
      options.stall_timeout_ms = std::max(100, static_cast<int>(parse_number("--stall", o.stall) * 1000));
    if (!o.interval.empty()) options.interval_ms = static_cast<int>(parse_number("--interval", o.interval));
    if (!o.selector.empty()) prom.selector = live::normalise_selector(o.selector);
    if (!o.since.empty()) prom.since_s = parse_duration_s("--since", o.since);
    if (!o.poll.empty())
      prom.poll_ms = std::max(100, static_cast<int>(parse_number("--poll", o.poll) * 1000));
    for (const std::string& a : o.sources) {
      if (live::is_prometheus_source(a)) {
        if (!prometheus.empty()) throw UsageError{"give one Prometheus server, not several"};
        prometheus = live::parse_prometheus_source(a);
      } else {
        endpoints.push_back(live::parse_endpoint(a));
      }
    }
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  if (!prometheus.empty() && !endpoints.empty())
    throw UsageError{"give either a Prometheus server or agent endpoints, not both"};
  if (endpoints.empty() && prometheus.empty())
    throw UsageError{"give at least one endpoint (HOST:PORT or unix:PATH) or prometheus:http://HOST:9090"};

  return w;
}

}  // namespace oomscope::cli
