#pragma once
// A small client for the Prometheus HTTP API (v1): instant queries, range queries and the series list,
// over cpp-httplib, with the JSON answers turned into plain series. Every failure is an oomscope::Error
// whose file is the server's URL and whose message says what went wrong in one sentence: the server
// cannot be reached, it answered with an HTTP error, or the query was refused (Prometheus's own error
// text, e.g. a PromQL parse error for a bad selector). Not thread-safe: one PromApi per thread.

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace httplib {
class Client;
}

namespace oomscope::live {

// One label set with its points (unix milliseconds, value). Non-finite values are left out.
struct PromSeries {
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name, as Prometheus sends them
  std::vector<std::pair<std::int64_t, double>> points;

  // The label's value, or "" when the series has no such label.
  const std::string& label(std::string_view name) const;
};

// "prometheus:http://HOST:9090" or "prometheus:https://..." (also without the "prometheus:" prefix when
// `require_prefix` is false). Returns the server URL without a trailing slash; throws
// oomscope::Error(InvalidArgument) naming the text when it is not one.
std::string parse_prometheus_source(std::string_view text, bool require_prefix = true);
bool is_prometheus_source(std::string_view text);
// A label selector as the user writes it (`job="train"`, `{job="train",rank="3"}` or empty) without its
// braces; throws oomscope::Error(InvalidArgument) when braces or quotes do not balance.
std::string normalise_selector(std::string_view selector);

class PromApi {
 public:
  explicit PromApi(std::string server, int timeout_ms = 10'000);
  ~PromApi();
  PromApi(const PromApi&) = delete;
  PromApi& operator=(const PromApi&) = delete;

  const std::string& server() const { return server_; }
  // Times are unix milliseconds. An instant query of a range selector (`x[10s]`) gives the raw samples.
  std::vector<PromSeries> query(const std::string& expr, std::int64_t time_ms);
  std::vector<PromSeries> query_range(const std::string& expr, std::int64_t start_ms, std::int64_t end_ms,
                                      std::int64_t step_ms);
  // The label sets of the series matching `match` between the two times (points are empty).
  std::vector<PromSeries> series(const std::string& match, std::int64_t start_ms, std::int64_t end_ms);
  // Breaks a request in progress from another thread (it fails with "cancelled").
  void cancel();
  // Checked before each request: once stop is requested, requests throw oomscope::Cancelled.
  void set_stop_token(std::stop_token stop) { stop_ = std::move(stop); }

  std::uint64_t bytes_read() const { return bytes_; }
  std::uint64_t requests() const { return requests_; }

 private:
  std::string post(const std::string& path, const std::vector<std::pair<std::string, std::string>>& form);

  std::string server_;
  std::unique_ptr<httplib::Client> http_;
  std::uint64_t bytes_ = 0;
  std::uint64_t requests_ = 0;
  std::stop_token stop_;
};

// Parses an API answer ({"status":"success","data":...}) into series; throws oomscope::Error naming
// `server` for an error answer or a body that is not one. Exposed for tests.
std::vector<PromSeries> parse_prom_answer(const std::string& server, std::string_view body);

}  // namespace oomscope::live
