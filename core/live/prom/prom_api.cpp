// The Prometheus HTTP API client (see prom_api.h). Answers are read with nlohmann's SAX interface
// straight into PromSeries, so an hour of 64 ranks never builds a JSON tree.

#include "core/live/prom/prom_api.h"

#include <httplib.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace oomscope::live {

namespace {

Error api_error(const std::string& server, const std::string& message) {
  return Error(ErrorKind::Io, server, message);
}

// Builds PromSeries from the answer of query, query_range (data.result[]) or series (data[]).
class AnswerReader {
 public:
  using json = nlohmann::json;
  std::vector<PromSeries> series;
  std::string status, error_type, error;

  bool null() { return next_value(); }
  bool boolean(bool) { return next_value(); }
  bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return number(v); }
  bool binary(json::binary_t&) { return next_value(); }
  bool string(std::string& s) {
    const Where w = where();
    if (w == Where::Status) {
      status = s;
    } else if (w == Where::ErrorType) {
      error_type = s;
    } else if (w == Where::Error) {
      error = s;
    } else if (w == Where::Label) {
      series.back().labels.emplace_back(key_, s);
    } else if (w == Where::PointValue) {
      double v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec == std::errc() && std::isfinite(v)) series.back().points.emplace_back(point_t_, v);
    }
    return next_value();
  }
  bool key(std::string& k) {
    key_ = k;
    return true;
  }
  bool start_object(std::size_t) {
    frames_.push_back(Frame{false, parent_key(), 0});
    if (is_series_object()) series.emplace_back();
    return true;
  }
  bool end_object() { return end(); }
  bool start_array(std::size_t) {
    frames_.push_back(Frame{true, parent_key(), 0});
    return true;
  }
  bool end_array() { return end(); }
  bool parse_error(std::size_t at, const std::string&, const nlohmann::detail::exception& e) {
    parse_error_ = "the answer is not valid JSON at byte " + std::to_string(at) + " (" + e.what() + ")";
    return false;
  }
  const std::string& parse_error_text() const { return parse_error_; }

 private:
  struct Frame {
    bool array;
    std::string key;  // the key this container sits under in its parent object ("" in an array)
    int index;        // arrays: the next element's position
  };
  enum class Where { Other, Status, ErrorType, Error, Label, PointTime, PointValue };

  std::string parent_key() const { return frames_.empty() || frames_.back().array ? std::string() : key_; }
  bool end() {
    frames_.pop_back();
    return next_value();
  }
  // After any value: arrays count their elements.
  bool next_value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool number(double v) {
    if (where() == Where::PointTime) point_t_ = std::llround(v * 1000.0);
    return next_value();
  }
  // root{data{result[ {metric{..}, values[[t,v]..], value[t,v]} ]}} or root{data[ {labels} ]}
  bool is_series_object() const {
    const std::size_t n = frames_.size();
    if (n == 4) return frames_[1].key == "data" && frames_[2].array && frames_[2].key == "result";
    if (n == 3) return frames_[1].key == "data" && frames_[1].array;
    return false;
  }
  Where where() const {
    const std::size_t n = frames_.size();
    if (n == 1) {
      if (key_ == "status") return Where::Status;
      if (key_ == "errorType") return Where::ErrorType;
      if (key_ == "error") return Where::Error;
      return Where::Other;
    }
    if (n < 3 || frames_[1].key != "data" || series.empty()) return Where::Other;
    if (n == 3 && frames_[1].array && !frames_[2].array) return Where::Label;
    if (n == 5 && frames_[2].key == "result" && !frames_[4].array && frames_[4].key == "metric")
      return Where::Label;
    const Frame& top = frames_.back();
    const bool point = (n == 6 && frames_[4].key == "values" && top.array) ||
                       (n == 5 && frames_[4].key == "value" && top.array);
    if (!point) return Where::Other;
    return top.index == 0 ? Where::PointTime : top.index == 1 ? Where::PointValue : Where::Other;
  }

  std::vector<Frame> frames_;
  std::string key_;
  std::int64_t point_t_ = 0;
  std::string parse_error_;
};

// The fast path for the common answer, a matrix exactly as Prometheus writes it:
//   {"status":"success","data":{"resultType":"matrix","result":[{"metric":{..},"values":[[T,"V"],..]},..]}}
// scanned by hand (about five times faster than the SAX reader). Returns false at anything else (an error
// answer, other spacing or order, escapes), and the caller falls back to the general reader.
class MatrixScanner {
 public:
  explicit MatrixScanner(std::string_view body) : p_(body.data()), end_(body.data() + body.size()) {}

  bool scan(std::vector<PromSeries>& out) {
    if (!lit(R"({"status":"success","data":{"resultType":"matrix","result":[)")) return false;
    if (peek() == ']') return ++p_, lit("}}") && at_end();
    for (;;) {
      PromSeries s;
      if (!lit(R"({"metric":{)") || !labels(s) || !lit(R"(,"values":[)") || !points(s) || !lit("}"))
        return false;
      out.push_back(std::move(s));
      if (peek() == ',') {
        ++p_;
        continue;
      }
      return lit("]}}") && at_end();
    }
  }

 private:
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  bool at_end() {
    while (p_ < end_ && (*p_ == '\n' || *p_ == ' ')) ++p_;
    return p_ == end_;
  }
  bool lit(std::string_view s) {
    if (static_cast<std::size_t>(end_ - p_) < s.size() || std::string_view(p_, s.size()) != s) return false;
    p_ += s.size();
    return true;
  }
  bool str(std::string& out) {  // a string without escapes
    if (peek() != '"') return false;
    const char* q = ++p_;
    while (p_ < end_ && *p_ != '"') {
      if (*p_ == '\\') return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out.assign(q, p_);
    ++p_;
    return true;
  }
  bool labels(PromSeries& s) {
    if (peek() == '}') return ++p_, true;
    for (;;) {
      std::string k, v;
      if (!str(k) || !lit(":") || !str(v)) return false;
      s.labels.emplace_back(std::move(k), std::move(v));
      if (peek() == ',') {
        ++p_;
        continue;
      }
      return lit("}");
    }
  }
  bool points(PromSeries& s) {
    if (peek() == ']') return ++p_, true;
    for (;;) {
      double t = 0, v = 0;
      if (!lit("[")) return false;
      auto r = std::from_chars(p_, end_, t);
      if (r.ec != std::errc()) return false;
      p_ = r.ptr;
      if (!lit(",\"")) return false;
      r = std::from_chars(p_, end_, v);
      if (r.ec != std::errc()) {  // NaN, +Inf, -Inf: skipped
        while (p_ < end_ && *p_ != '"') ++p_;
      } else {
        p_ = r.ptr;
        if (std::isfinite(v)) s.points.emplace_back(std::llround(t * 1000.0), v);
      }
      if (!lit("\"]")) return false;
      if (peek() == ',') {
        ++p_;
        continue;
      }
      return lit("]");
    }
  }

  const char* p_;
  const char* end_;
};

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

const std::string& PromSeries::label(std::string_view name) const {
  static const std::string empty;
  for (const auto& [k, v] : labels)
    if (k == name) return v;
  return empty;
}

bool is_prometheus_source(std::string_view text) { return text.starts_with("prometheus:"); }

std::string parse_prometheus_source(std::string_view text, bool require_prefix) {
  std::string_view url = text;
  if (url.starts_with("prometheus:"))
    url.remove_prefix(11);
  else if (require_prefix)
    throw Error(ErrorKind::InvalidArgument, std::string(text),
                "not a Prometheus source; write prometheus:http://HOST:9090");
  if (!url.starts_with("http://") && !url.starts_with("https://"))
    throw Error(ErrorKind::InvalidArgument, std::string(text),
                "a Prometheus server is an http:// or https:// URL, e.g. prometheus:http://127.0.0.1:9090");
  while (url.ends_with('/')) url.remove_suffix(1);
  const auto host = url.substr(url.find("//") + 2);
  if (host.empty() || host.find('/') != std::string_view::npos || host.find('?') != std::string_view::npos)
    throw Error(ErrorKind::InvalidArgument, std::string(text),
                "give the server as scheme://HOST[:PORT] without a path, e.g. http://127.0.0.1:9090");
  return std::string(url);
}

std::string normalise_selector(std::string_view selector) {
  std::string s = trim(selector);
  if (!s.empty() && s.front() == '{') {
    if (s.back() != '}')
      throw Error(ErrorKind::InvalidArgument, {}, "the selector '" + s + "' opens a brace it does not close");
    s = trim(std::string_view(s).substr(1, s.size() - 2));
  }
  bool quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && quoted)
      ++i;
    else if (s[i] == '"')
      quoted = !quoted;
    else if (!quoted && (s[i] == '{' || s[i] == '}'))
      throw Error(ErrorKind::InvalidArgument, {},
                  "the selector '" + s + "' has a stray brace; write label matchers like job=\"train\"");
  }
  if (quoted) throw Error(ErrorKind::InvalidArgument, {}, "the selector '" + s + "' has an unclosed quote");
  return s;
}

std::vector<PromSeries> parse_prom_answer(const std::string& server, std::string_view body) {
  {
    std::vector<PromSeries> fast;
    if (MatrixScanner(body).scan(fast)) return fast;
  }
  AnswerReader reader;
  const bool ok = nlohmann::json::sax_parse(body, &reader);
  if (!reader.error.empty())
    throw Error(ErrorKind::InvalidArgument, server,
                "Prometheus refused the query: " +
                    (reader.error_type.empty() ? "" : reader.error_type + ": ") + reader.error);
  if (!ok) throw api_error(server, reader.parse_error_text());
  if (reader.status != "success")
    throw api_error(server, "the answer's status is '" + reader.status + "', not 'success'");
  return std::move(reader.series);
}

PromApi::PromApi(std::string server, int timeout_ms) : server_(std::move(server)) {
  http_ = std::make_unique<httplib::Client>(server_);
  if (!http_->is_valid()) throw api_error(server_, "not a server URL the HTTP client accepts");
  const auto secs = timeout_ms / 1000, usecs = (timeout_ms % 1000) * 1000;
  http_->set_connection_timeout(std::min(secs, 3), secs < 3 ? usecs : 0);
  http_->set_read_timeout(secs, usecs);
  http_->set_write_timeout(secs, usecs);
  http_->set_keep_alive(true);
}

PromApi::~PromApi() = default;

void PromApi::cancel() { http_->stop(); }

std::string PromApi::post(const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& form) {
  httplib::Params params;
  for (const auto& [k, v] : form) params.emplace(k, v);
  if (stop_.stop_requested()) throw Cancelled(server_);
  ++requests_;
  auto res = http_->Post(path, params);
  if (!res) {
    const auto err = res.error();
    if (err == httplib::Error::Canceled || stop_.stop_requested()) throw Cancelled(server_);
    if (err == httplib::Error::Connection)
      throw api_error(server_,
                      "cannot reach the Prometheus server: the connection failed (is it running, and is "
                      "the address right?)");
    throw api_error(server_, "cannot reach the Prometheus server (" + httplib::to_string(err) + " error)");
  }
  bytes_ += res->body.size();
  // 400 (bad_data), 422 (execution) and 503 (timeout) carry Prometheus's JSON error: parse_prom_answer says
  // it.
  if (res->status != 200 && res->status != 400 && res->status != 422 && res->status != 503)
    throw api_error(
        server_, "HTTP " + std::to_string(res->status) + " from " + path + " (is this a Prometheus server?)");
  return std::move(res->body);
}

namespace {
std::string seconds_text(std::int64_t ms) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ms) / 1000.0);
  return buf;
}
}  // namespace

std::vector<PromSeries> PromApi::query(const std::string& expr, std::int64_t time_ms) {
  return parse_prom_answer(server_,
                           post("/api/v1/query", {{"query", expr}, {"time", seconds_text(time_ms)}}));
}

std::vector<PromSeries> PromApi::query_range(const std::string& expr, std::int64_t start_ms,
                                             std::int64_t end_ms, std::int64_t step_ms) {
  return parse_prom_answer(server_, post("/api/v1/query_range", {{"query", expr},
                                                                 {"start", seconds_text(start_ms)},
                                                                 {"end", seconds_text(end_ms)},
                                                                 {"step", seconds_text(step_ms)}}));
}

std::vector<PromSeries> PromApi::series(const std::string& match, std::int64_t start_ms,
                                        std::int64_t end_ms) {
  return parse_prom_answer(
      server_, post("/api/v1/series",
                    {{"match[]", match}, {"start", seconds_text(start_ms)}, {"end", seconds_text(end_ms)}}));
}

}  // namespace oomscope::live
