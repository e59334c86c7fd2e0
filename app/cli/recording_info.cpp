// `info` on a live recording (recording_info.h).

#include "app/cli/recording_info.h"

#include <cstdio>
#include <set>
#include <sstream>

#include "core/live/client/recording_ranks.h"
#include "core/live/client/recording_steps.h"
#include "core/util/bytes.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

using namespace oomscope::live;
using Json = nlohmann::ordered_json;

namespace {

std::string seconds(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

Json or_null(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

std::string steps_text(const RecordingRankSteps& s) {
  if (s.by_step.empty()) return "none";
  return std::to_string(*s.first_step) + "-" + std::to_string(*s.last_step) + " (" +
         std::to_string(s.steps()) + ")";
}

}  // namespace

Rendered recording_info_document(const std::string& path, const std::stop_token& stop) {
  const RecordingComparison c = compare_recording_ranks(path, stop);
  std::map<int, RecordingRankSteps> steps = read_recording_steps(path, stop);
  std::set<std::string> hosts;
  std::int64_t samples = 0, last = c.t0, ooms = 0;
  for (const RecordingRankFigures& f : c.ranks) {
    if (!f.host.empty()) hosts.insert(f.host);
    samples += f.samples;
    last = std::max(last, f.last_t);
    ooms += static_cast<std::int64_t>(f.ooms.size());
  }
  std::string host_list;
  for (const std::string& h : hosts) host_list += (host_list.empty() ? "" : ", ") + h;

  std::ostringstream o;
  o << path << ": live recording, " << c.ranks.size() << " rank" << (c.ranks.size() == 1 ? "" : "s")
    << " with samples on " << hosts.size() << " host" << (hosts.size() == 1 ? "" : "s")
    << (hosts.empty() ? " named (no hello gives a host)" : " (" + host_list + ")") << "\n";
  if (!c.truncated_note.empty()) o << c.truncated_note << "\n";
  o << seconds(last - c.t0) << " from the first sample to the last (any rank, the agents' clocks), "
    << samples << " samples, " << ooms << " OOM event" << (ooms == 1 ? "" : "s") << "\n\n";
  o << "rank  host        device    samples  steps (count)  peak allocated  peak reserved  capacity  OOMs\n";
  Json ranks = Json::array();
  for (const RecordingRankFigures& f : c.ranks) {
    const RecordingRankSteps& s = steps[f.rank];
    char line[320];
    std::snprintf(line, sizeof line, "%-4d  %-10s  %-8s  %-7lld  %-13s  %-14s  %-13s  %-8s  %zu\n", f.rank,
                  f.host.empty() ? "-" : f.host.c_str(), f.device.empty() ? "-" : f.device.c_str(),
                  static_cast<long long>(f.samples), steps_text(s).c_str(),
                  f.has_allocated ? format_bytes(f.peak_allocated).c_str() : "-",
                  f.has_reserved ? format_bytes(f.peak_reserved).c_str() : "-",
                  f.capacity ? format_bytes(*f.capacity).c_str() : "unknown", f.ooms.size());
    o << line;
    ranks.push_back({{"rank", f.rank},
                     {"hello_rank", f.hello_rank ? Json(*f.hello_rank) : Json(nullptr)},
                     {"host", f.host},
                     {"device", f.device},
                     {"samples", f.samples},
                     {"steps", s.steps()},
                     {"first_step", or_null(s.first_step)},
                     {"last_step", or_null(s.last_step)},
                     {"peak_allocated_bytes", f.has_allocated ? Json(f.peak_allocated) : Json(nullptr)},
                     {"peak_reserved_bytes", f.has_reserved ? Json(f.peak_reserved) : Json(nullptr)},
                     {"capacity_bytes", or_null(f.capacity)},
                     {"oom_events", f.ooms.size()}});
  }
  const std::string verdict = c.verdict.sentences.empty() ? std::string() : c.verdict.sentences.front();
  o << "\nverdict: rank " << c.verdict.rank << " (" << c.verdict.kind << "): " << verdict << "\n";
  o << "(report " << path << " compares the ranks in full)\n";

  Json j;
  j["kind"] = "live-recording";
  j["file"] = path;
  j["truncated"] = c.truncated_note.empty() ? Json(nullptr) : Json(c.truncated_note);
  j["hosts"] = hosts;
  j["t0_ns"] = c.t0;
  j["duration_s"] = static_cast<double>(last - c.t0) / 1e9;
  j["samples"] = samples;
  j["oom_events"] = ooms;
  j["ranks"] = std::move(ranks);
  j["verdict"] = {{"rank", c.verdict.rank}, {"case", c.verdict.kind}, {"sentence", verdict}};
  return Rendered{terminal_safe(o.str()), std::move(j)};
}

}  // namespace oomscope::cli
