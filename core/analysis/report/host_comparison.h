#pragma once
// Several hosts of one multi-host run side by side (one capture file per host): each host's pool peak,
// capacity and executions, and which host ran out of memory first.
//
// "Ran out first" is decided from evidence of running out:
//   1. the earliest AllocatorRetry wait (the allocator had to wait for memory: measured), or the start of an
//      execution that never launched its kernels (the OOM pattern of docs/report-rules.md: derived);
//   2. when no host shows either, the host with the highest peak in use / capacity, said as such (it came
//      closest; nothing ran out in the captured window).
// "Earliest" is on one clock when every host that ran short records where its time 0 lies on the wall
// clock (Capture::clock_origin_ns: its profile start, or the base of since-epoch line timestamps): each
// host's times are placed at that origin, so hosts captured together compare although each capture counts
// from its own start. This is as exact as the hosts' system clocks agree (NTP: typically well under a
// millisecond). Otherwise each host's own clock is used, and the explanation says so.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/report/report.h"
#include "core/capture/capture.h"

namespace oomscope::analysis {

struct HostStanding {
  std::string path;
  std::string host;                        // the capture's hostnames, or the file name when it has none
  std::string pool;                        // the allocator the figures are about ("" when none)
  std::optional<std::int64_t> peak_bytes;  // the pool's peak bytes in use (read)
  std::optional<std::int64_t> capacity_bytes;
  std::int64_t executions = 0;                        // host executions of all modules (measured)
  std::optional<double> peak_fraction;                // peak / capacity (derived)
  std::optional<std::int64_t> first_trouble_ps;       // capture time (ps) of the earliest sign of running out
  std::optional<std::int64_t> first_trouble_wall_ns;  // the same on the wall clock (ns since the epoch)
  std::string first_trouble;                          // what it was: "AllocatorRetry wait", ...
  std::int64_t retries = 0;
};

enum class FirstOutBasis : std::uint8_t {
  None,              // no host has a pool figure or any sign of running out
  EarliestTrouble,   // the earliest AllocatorRetry wait or never-launched execution
  HighestPeakRatio,  // nothing ran out: the host closest to its capacity
};

struct HostComparison {
  std::vector<HostStanding> hosts;  // in the order given
  std::optional<std::size_t> first_out;
  FirstOutBasis basis = FirstOutBasis::None;
  bool one_clock = false;   // EarliestTrouble decided on the wall clock (else each host's own clock)
  std::string explanation;  // one sentence saying which host and on what evidence
};

// reports[i] and captures[i] describe the same file; captures may hold nulls (plan-only reports).
// "2026-02-20 13:53:59.239 UTC" (milliseconds, UTC) for a wall-clock time in ns since the epoch.
std::string format_wall_time(std::int64_t ns_since_epoch);

HostComparison compare_hosts(std::span<const HostReport> reports,
                             std::span<const std::shared_ptr<const capture::Capture>> captures);

}  // namespace oomscope::analysis
