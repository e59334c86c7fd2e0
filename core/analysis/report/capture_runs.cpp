#include "core/analysis/report/capture_runs.h"

#include <algorithm>
#include <cstdio>

#include "core/analysis/report/host_comparison.h"
#include "core/analysis/report/report.h"

namespace oomscope::analysis {

std::string format_spread(std::int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  char buf[48];
  if (s < 1)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else if (s < 120)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 2 * 3600)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 48 * 3600)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string first_host(const CaptureIdentity& c) {
  return c.hostnames.empty() ? std::string() : c.hostnames[0];
}

}  // namespace

CaptureRuns judge_capture_runs(std::span<const CaptureIdentity> captures) {
  CaptureRuns out;
  if (captures.size() < 2) return out;
  const std::string n = std::to_string(captures.size());
  // Different programs: the hosts of one run run the same modules.
  const std::vector<std::string> first_modules = sorted_unique(captures.front().modules);
  for (const CaptureIdentity& c : captures.subspan(1))
    if (!first_modules.empty() && !c.modules.empty() && sorted_unique(c.modules) != first_modules) {
      out.verdict = CaptureRunsVerdict::DifferentPrograms;
      out.sentence = "these " + n + " captures are not hosts of one run: " + captures.front().path + " and " +
                     c.path + " ran different XLA modules [read] (the hosts of one run run the same " +
                     "program), so they are different runs; compare their figures as separate runs";
      return out;
    }
  for (const CaptureIdentity& c : captures)
    if (!c.profile_start_ns) {
      out.verdict = CaptureRunsVerdict::Unknown;
      out.sentence = "whether these " + n +
                     " captures were taken together (hosts of one run) cannot be told: " + c.path +
                     " records no profile start time";
      return out;
    }
  const auto [lo, hi] = std::minmax_element(
      captures.begin(), captures.end(),
      [](const auto& a, const auto& b) { return *a.profile_start_ns < *b.profile_start_ns; });
  out.spread_ns = *hi->profile_start_ns - *lo->profile_start_ns;
  if (out.spread_ns > kTogetherNs) {
    out.verdict = CaptureRunsVerdict::Apart;
    out.sentence = "these " + n + " captures are not of one run captured together: their profiles started " +
                   format_spread(out.spread_ns) + " apart [read] (" + lo->path + " at " +
                   format_wall_time(*lo->profile_start_ns) + ", " + hi->path + " at " +
                   format_wall_time(*hi->profile_start_ns) +
                   "), so they are different runs (or one run at different moments), not hosts of one run: "
                   "compare their figures as separate runs";
    return out;
  }
  std::vector<std::string> hosts;
  for (const CaptureIdentity& c : captures) hosts.push_back(first_host(c));
  const std::size_t distinct = sorted_unique(hosts).size();
  if (distinct < captures.size() && !first_host(captures.front()).empty()) {
    out.verdict = CaptureRunsVerdict::OneHost;
    out.sentence = "these " + n + " captures' profiles started within " + format_spread(out.spread_ns) +
                   " of each other [read], but they name " + std::to_string(distinct) +
                   (distinct == 1 ? " host" : " hosts") +
                   ": several processes of one host (one run's, or runs in turn: the captures cannot tell), "
                   "not one host each";
    return out;
  }
  out.verdict = CaptureRunsVerdict::Together;
  out.sentence = "these " + n + " captures ran the same modules and their profiles started within " +
                 format_spread(out.spread_ns) +
                 " of each other [read]: taken together, as the hosts of one run are";
  return out;
}

CaptureRuns judge_capture_runs(std::span<const HostReport> hosts) {
  std::vector<CaptureIdentity> identities;
  for (const HostReport& h : hosts) {
    std::vector<std::string> modules;
    for (const ModuleRow& m : h.modules) modules.push_back(m.name);
    identities.push_back({h.path, h.hostnames, h.profile_start_ns, std::move(modules)});
  }
  return judge_capture_runs(identities);
}

}  // namespace oomscope::analysis
