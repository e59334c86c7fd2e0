// The text and JSON of a live recording's ranks compared (recording_ranks.h; docs/report-json.md,
// "Ranks of a live recording").

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/live/client/recording_ranks.h"
#include "core/util/bytes.h"

namespace oomscope::live {

namespace {

std::string seconds_since(std::int64_t t, std::int64_t t0) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(t - t0) / 1e9);
  return buf;
}

std::string ratio_text(const RecordingImbalance& im) {
  std::string s = im.name == "peak_allocated" ? "peak allocated" : "peak reserved";
  if (!im.ratio) return s + ": median 0, no ratio";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *im.ratio);
  return s + " max / median " + buf + " (rank " + std::to_string(im.max_rank) + " " +
         format_bytes(im.max_bytes) + ", median " + format_bytes(static_cast<std::int64_t>(im.median)) + ")";
}

nlohmann::json median_json(double m) {
  if (m == static_cast<double>(static_cast<std::int64_t>(m))) return static_cast<std::int64_t>(m);
  return m;
}

nlohmann::json imbalance_json(const RecordingImbalance& im) {
  return {{"name", im.name},
          {"max_bytes", im.max_bytes},
          {"max_rank", im.max_rank},
          {"median_bytes", median_json(im.median)},
          {"ratio", im.ratio ? nlohmann::json(*im.ratio) : nlohmann::json(nullptr)}};
}

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json rank_json(const RecordingRankFigures& f, std::int64_t t0) {
  nlohmann::json j = {{"rank", f.rank},
                      {"hello_rank", or_null(f.hello_rank)},
                      {"host", f.host},
                      {"backend", f.backend},
                      {"device", f.device},
                      {"samples", f.samples},
                      {"first_t_ns", f.first_t},
                      {"last_t_ns", f.last_t},
                      {"peak_allocated_bytes", f.has_allocated ? nlohmann::json(f.peak_allocated) : nullptr},
                      {"peak_allocated_offset_s", static_cast<double>(f.peak_allocated_t - t0) / 1e9},
                      {"peak_reserved_bytes", f.has_reserved ? nlohmann::json(f.peak_reserved) : nullptr},
                      {"peak_reserved_offset_s", static_cast<double>(f.peak_reserved_t - t0) / 1e9},
                      {"peak_driver_bytes", or_null(f.peak_driver)},
                      {"capacity_bytes", or_null(f.capacity)},
                      {"capacity_source", f.capacity_from}};
  if (!f.has_allocated) j["peak_allocated_offset_s"] = nullptr;
  if (!f.has_reserved) j["peak_reserved_offset_s"] = nullptr;
  if (f.tightest) {
    const RecordingTightest& t = *f.tightest;
    j["tightest"] = {{"t_ns", t.t},
                     {"offset_s", static_cast<double>(t.t - t0) / 1e9},
                     {"step", or_null(t.step)},
                     {"capacity_bytes", t.capacity},
                     {"used_bytes", t.used},
                     {"used_field", t.used_field},
                     {"headroom_bytes", t.headroom()},
                     {"headroom_fraction", t.fraction()}};
  } else {
    j["tightest"] = nullptr;
  }
  j["ooms"] = nlohmann::json::array();
  for (const RecordingOom& o : f.ooms)
    j["ooms"].push_back({{"t_ns", o.t},
                         {"offset_s", static_cast<double>(o.t - t0) / 1e9},
                         {"step", or_null(o.step)},
                         {"step_from", o.step ? (o.step_from_event ? "event" : "last-sample") : ""},
                         {"requested_bytes", or_null(o.requested)},
                         {"message", o.message},
                         {"snapshot", o.snapshot}});
  return j;
}

}  // namespace

std::string recording_tightest_text(const RecordingTightest& t, std::int64_t t0) {
  char line[256];
  std::snprintf(line, sizeof line, "%s (%.1f%%, %s) at %s", format_bytes(t.headroom()).c_str(),
                100.0 * t.fraction(), t.used_field.c_str(), seconds_since(t.t, t0).c_str());
  return line;
}

std::string recording_oom_text(const RecordingOom& oom, std::int64_t t0) {
  std::string s = "at " + seconds_since(oom.t, t0);
  if (oom.step)
    s += ", step " + std::to_string(*oom.step) + (oom.step_from_event ? "" : " (its last sample's)");
  s += ", request " + (oom.requested ? format_bytes(*oom.requested) : std::string("not in the message"));
  if (!oom.snapshot.empty()) s += ", snapshot " + oom.snapshot;
  return s;
}

std::string recording_imbalance_text(const RecordingComparison& c) {
  return "imbalance [derived]: " + ratio_text(c.peak_allocated) + "; " + ratio_text(c.peak_reserved);
}

void write_recording_comparison_text(std::ostream& o, const RecordingComparison& c) {
  bool driver = false;
  for (const RecordingRankFigures& f : c.ranks) driver = driver || f.peak_driver.has_value();
  o << c.path << ": live recording, " << c.ranks.size() << " rank" << (c.ranks.size() == 1 ? "" : "s")
    << " with samples, compared as one job; times are seconds after the first sample of any rank, as the "
       "agents stamped them\n";
  if (!c.truncated_note.empty()) o << c.path << ": " << c.truncated_note << "\n";
  o << "\nrank  peak allocated  peak reserved" << (driver ? "  peak driver" : "")
    << "  capacity     tightest headroom\n";
  for (const RecordingRankFigures& f : c.ranks) {
    char line[256];
    std::snprintf(line, sizeof line, "%-4d  %-14s  %-13s", f.rank,
                  f.has_allocated ? format_bytes(f.peak_allocated).c_str() : "-",
                  f.has_reserved ? format_bytes(f.peak_reserved).c_str() : "-");
    o << line;
    if (driver) {
      std::snprintf(line, sizeof line, "  %-11s", f.peak_driver ? format_bytes(*f.peak_driver).c_str() : "-");
      o << line;
    }
    std::snprintf(line, sizeof line, "  %-11s", f.capacity ? format_bytes(*f.capacity).c_str() : "unknown");
    o << line << "  ";
    o << (f.tightest ? recording_tightest_text(*f.tightest, c.t0) : std::string("-"));
    o << "\n";
  }
  std::vector<std::pair<const RecordingOom*, int>> ooms;  // every rank's, by time
  for (const RecordingRankFigures& f : c.ranks)
    for (const RecordingOom& oom : f.ooms) ooms.emplace_back(&oom, f.rank);
  std::stable_sort(ooms.begin(), ooms.end(),
                   [](const auto& a, const auto& b) { return a.first->t < b.first->t; });
  if (!ooms.empty()) o << "\nOOM events, by time [read]:\n";
  for (const auto& [p, rank] : ooms) {
    o << "  rank " << rank << " " << recording_oom_text(*p, c.t0) << "\n";
  }
  o << "\nverdict: rank " << c.verdict.rank << " (" << c.verdict.kind << ")\n";
  for (const std::string& s : c.verdict.sentences) o << "  " << s << "\n";
  o << recording_imbalance_text(c) << "\n";
}

nlohmann::json recording_comparison_json(const RecordingComparison& c) {
  nlohmann::json j;
  j["kind"] = "live-recording-ranks";
  j["file"] = c.path;
  j["t0_ns"] = c.t0;
  j["truncated"] = c.truncated_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.truncated_note);
  j["ranks"] = nlohmann::json::array();
  for (const RecordingRankFigures& f : c.ranks) j["ranks"].push_back(rank_json(f, c.t0));
  j["verdict"] = {{"rank", c.verdict.rank},
                  {"case", c.verdict.kind},
                  {"sentences", c.verdict.sentences},
                  {"oom_ranks", c.verdict.oom_ranks},
                  {"clocks_comparable", or_null(c.verdict.clocks_comparable)}};
  j["imbalance"] = {{"peak_allocated", imbalance_json(c.peak_allocated)},
                    {"peak_reserved", imbalance_json(c.peak_reserved)}};
  return j;
}

}  // namespace oomscope::live
