#pragma once
// Whether the captures read together (a folder given to `info` or `report`, or several files) were taken
// together, as the hosts of one run are, or at different times (different runs, or one run captured at
// different moments). The evidence, all read from the captures: the XLA modules each ran (the hosts of one
// run run the same program), each profile's start on the wall clock (Task Environment's
// profile_start_time: hosts profiled together start within seconds of each other) and the hostnames (two
// captures of one host are not two hosts). A sentence never claims more than that evidence shows.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace oomscope::analysis {

// What one capture says of when and where it was taken (read).
struct CaptureIdentity {
  std::string path;
  std::vector<std::string> hostnames;
  std::optional<std::int64_t> profile_start_ns;  // ns since the epoch; nullopt when not recorded
  std::vector<std::string> modules;              // names of its XLA modules (any order)
};

enum class CaptureRunsVerdict : std::uint8_t {
  Single,             // fewer than two captures: nothing to say
  Together,           // same modules, distinct hosts, profiles started within kTogetherNs: one run's hosts
  DifferentPrograms,  // two captures ran different sets of XLA modules: not hosts of one run
  Apart,              // profiles started more than kTogetherNs apart: not captured together
  OneHost,            // started together but on one host: processes of one host, not hosts of one run
  Unknown,            // a capture records no profile start: it cannot be told
};

struct CaptureRuns {
  CaptureRunsVerdict verdict = CaptureRunsVerdict::Single;
  std::int64_t spread_ns = 0;  // latest minus earliest profile start (Together, Apart)
  std::string sentence;        // one sentence saying so ("" for Single)
};

// Profiles started further apart than this were not started together (a multi-host job starts its hosts'
// profilers within seconds; a minute leaves room for slow hosts).
inline constexpr std::int64_t kTogetherNs = 60'000'000'000;

CaptureRuns judge_capture_runs(std::span<const CaptureIdentity> captures);

struct HostReport;
// The same judgement on the reports of captures read together (`report FILES`, the GUI's Hosts page).
CaptureRuns judge_capture_runs(std::span<const HostReport> hosts);

// "6.00 ms", "42.0 s", "12.5 min", "3.2 h", "4.1 days": a duration for the sentence above.
std::string format_spread(std::int64_t ns);

}  // namespace oomscope::analysis
