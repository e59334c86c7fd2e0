#include "core/analysis/report/host_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/util/bytes.h"

namespace oomscope::analysis {

namespace {

std::string host_name(const HostReport& report) {
  std::string joined;
  for (const std::string& name : report.hostnames) joined += (joined.empty() ? "" : ", ") + name;
  if (!joined.empty()) return joined;
  return std::filesystem::path(report.path).filename().string();
}

// The allocator the analysed module's executions allocate from, else the one with the highest peak.
const AllocatorRuntime* pool_of(const HostReport& report) {
  const auto& allocators = report.runtime.allocators;
  if (const auto& module = report.runtime.module; module && module->allocator)
    for (const AllocatorRuntime& a : allocators)
      if (a.index == *module->allocator) return &a;
  const auto it = std::max_element(allocators.begin(), allocators.end(), [](const auto& x, const auto& y) {
    return x.peak_bytes_in_use < y.peak_bytes_in_use;
  });
  return it == allocators.end() ? nullptr : &*it;
}

HostStanding standing(const HostReport& report, const capture::Capture* capture) {
  HostStanding s;
  s.path = report.path;
  s.host = host_name(report);
  s.executions = report.runtime.executions_total;
  s.retries = report.runtime.retries.count;
  if (const AllocatorRuntime* pool = pool_of(report)) {
    s.pool = pool->name;
    s.peak_bytes = pool->peak_bytes_in_use;
    if (pool->capacity_bytes > 0) s.capacity_bytes = pool->capacity_bytes;
  }
  if (s.peak_bytes && s.capacity_bytes && *s.capacity_bytes > 0)
    s.peak_fraction = double(*s.peak_bytes) / double(*s.capacity_bytes);

  if (capture) {
    for (const capture::RetryEvent& retry : capture->allocator_retries()) {
      if (!s.first_trouble_ps || retry.time_ps < *s.first_trouble_ps) {
        s.first_trouble_ps = retry.time_ps;
        s.first_trouble = "AllocatorRetry wait";
      }
    }
  }
  if (const auto& module = report.runtime.module; module && !module->executions.empty()) {
    for (const RuntimeExecution& e : module->executions) {
      if (e.launched != std::optional<bool>(false)) continue;
      if (!s.first_trouble_ps || e.start_ps < *s.first_trouble_ps) {
        s.first_trouble_ps = e.start_ps;
        s.first_trouble = "execution " + std::to_string(e.number) + " of " + e.label + " never launched";
      }
      break;  // executions are in time order: the first one is the earliest
    }
  }
  // A line that kept an epoch timestamp saturates (the reader keeps picoseconds in 64 bits): such a time
  // says that the host ran short, not when, so it cannot be ordered against other hosts.
  if (s.first_trouble_ps && (*s.first_trouble_ps == std::numeric_limits<std::int64_t>::max() ||
                             *s.first_trouble_ps == std::numeric_limits<std::int64_t>::min())) {
    s.first_trouble_ps.reset();
    s.first_trouble += " (time unknown)";
  }
  if (s.first_trouble_ps && capture && capture->clock_origin_ns()) {
    const std::int64_t ns = *s.first_trouble_ps / 1000;  // floor for negative times too
    s.first_trouble_wall_ns = *capture->clock_origin_ns() + ns - (*s.first_trouble_ps % 1000 < 0 ? 1 : 0);
  }
  return s;
}

// "25.0 ms", "1.50 s" for a non-negative duration in ns.
std::string format_seconds(std::int64_t ns) {
  char text[32];
  if (ns < 1'000'000'000)
    std::snprintf(text, sizeof text, "%.1f ms", double(ns) / 1e6);
  else
    std::snprintf(text, sizeof text, "%.2f s", double(ns) / 1e9);
  return text;
}

}  // namespace

std::string format_wall_time(std::int64_t ns_since_epoch) {
  const std::int64_t ns_per_s = 1'000'000'000;
  std::int64_t seconds = ns_since_epoch / ns_per_s, rest = ns_since_epoch % ns_per_s;
  if (rest < 0) {
    --seconds;
    rest += ns_per_s;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (!gmtime_r(&t, &utc)) return std::to_string(ns_since_epoch) + " ns since the epoch";
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d.%03d UTC", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, int(rest / 1'000'000));
  return text;
}

HostComparison compare_hosts(std::span<const HostReport> reports,
                             std::span<const std::shared_ptr<const capture::Capture>> captures) {
  HostComparison c;
  for (std::size_t i = 0; i < reports.size(); ++i)
    c.hosts.push_back(standing(reports[i], i < captures.size() ? captures[i].get() : nullptr));

  // One clock when every host that ran short knows its wall-clock origin.
  c.one_clock = std::any_of(c.hosts.begin(), c.hosts.end(),
                            [](const HostStanding& h) { return h.first_trouble_ps.has_value(); }) &&
                std::all_of(c.hosts.begin(), c.hosts.end(), [](const HostStanding& h) {
                  return !h.first_trouble_ps || h.first_trouble_wall_ns;
                });
  const auto when = [&c](const HostStanding& h) {
    return c.one_clock ? h.first_trouble_wall_ns : h.first_trouble_ps;
  };
  std::optional<std::size_t> second;
  for (std::size_t i = 0; i < c.hosts.size(); ++i) {
    const auto t = when(c.hosts[i]);
    if (!t) continue;
    if (!c.first_out || *t < *when(c.hosts[*c.first_out])) {
      second = c.first_out;
      c.first_out = i;
    } else if (!second || *t < *when(c.hosts[*second])) {
      second = i;
    }
  }
  std::ostringstream why;
  if (c.first_out) {
    const HostStanding& h = c.hosts[*c.first_out];
    c.basis = FirstOutBasis::EarliestTrouble;
    why << h.host << " ran out first: its " << h.first_trouble;
    if (c.one_clock) {
      why << " at " << format_wall_time(*h.first_trouble_wall_ns);
      if (second) {
        const HostStanding& next = c.hosts[*second];
        why << ", " << format_seconds(*next.first_trouble_wall_ns - *h.first_trouble_wall_ns) << " before "
            << next.host << "'s " << next.first_trouble;
      } else {
        why << "; no other host waited for memory or missed a launch";
      }
      why << " (hosts placed on one clock by the wall-clock start each capture records; as exact as the "
             "hosts' clocks agree).";
    } else {
      why << " came earliest (each host's own clock; not every capture records its wall-clock start, so the "
             "hosts cannot be placed on one clock).";
    }
    c.explanation = why.str();
    return c;
  }
  std::string untimed;  // hosts that ran short at a time that cannot be compared
  for (const HostStanding& h : c.hosts)
    if (!h.first_trouble.empty()) untimed += (untimed.empty() ? "" : ", ") + h.host;
  for (std::size_t i = 0; i < c.hosts.size(); ++i) {
    const auto& f = c.hosts[i].peak_fraction;
    if (f && (!c.first_out || *f > *c.hosts[*c.first_out].peak_fraction)) c.first_out = i;
  }
  if (c.first_out) {
    const HostStanding& h = c.hosts[*c.first_out];
    c.basis = FirstOutBasis::HighestPeakRatio;
    if (untimed.empty())
      why << "No host waited for memory or missed a launch in the capture; ";
    else
      why << untimed << " ran short, at times that cannot be compared; ";
    why << h.host << " came closest to running out: its peak was "
        << format_bytes(std::uint64_t(*h.peak_bytes)) << " of "
        << format_bytes(std::uint64_t(*h.capacity_bytes)) << " (" << std::lround(*h.peak_fraction * 100)
        << " %).";
  } else {
    why << "No host has allocator events with a capacity, so none can be said to have run out first.";
  }
  c.explanation = why.str();
  return c;
}

}  // namespace oomscope::analysis
