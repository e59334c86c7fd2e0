#include "core/analysis/host_comparison.h"

#include <algorithm>
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
  return s;
}

}  // namespace

HostComparison compare_hosts(std::span<const HostReport> reports,
                             std::span<const std::shared_ptr<const capture::Capture>> captures) {
  HostComparison c;
  for (std::size_t i = 0; i < reports.size(); ++i)
    c.hosts.push_back(standing(reports[i], i < captures.size() ? captures[i].get() : nullptr));

  for (std::size_t i = 0; i < c.hosts.size(); ++i) {
    const auto& t = c.hosts[i].first_trouble_ps;
    if (t && (!c.first_out || *t < *c.hosts[*c.first_out].first_trouble_ps)) c.first_out = i;
  }
  std::ostringstream why;
  if (c.first_out) {
    const HostStanding& h = c.hosts[*c.first_out];
    c.basis = FirstOutBasis::EarliestTrouble;
    why << h.host << " ran out first: its " << h.first_trouble
        << " came earliest (each host's own clock; the profiler does not synchronise them).";
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
        << format_bytes(std::uint64_t(*h.capacity_bytes)) << " (" << int(*h.peak_fraction * 100 + 0.5)
        << " %).";
  } else {
    why << "No host has allocator events with a capacity, so none can be said to have run out first.";
  }
  c.explanation = why.str();
  return c;
}

}  // namespace oomscope::analysis
