#pragma once
// "What would have fit": one function that replays a snapshot's trace under the recorded settings (with the
// validation against the recording) and under other settings and capacities, for the CLI and any other
// front end. Options in, a plain result out; whatif_json() and whatif_text() present it
// (docs/allocator-model.md).

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/allocator/replay.h"
#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

namespace oomscope::allocator {

struct WhatIfOptions {
  std::optional<std::uint64_t> capacity;  // bytes the allocator may reserve; none: as recorded
  std::vector<std::string> settings;      // "key:value" changes to the recorded settings
  std::optional<std::int64_t> device;     // none: the device with the longest trace
  bool one_scenario = false;  // the requested scenario even with nothing changed (not the standard set)
  unsigned threads = 0;  // replays at once in the standard set; 0: one per core. Results do not depend on it
  bool keep_curves = false;  // the recorded run and each scenario keep ReplayResult::curve (the GUI's chart)
};

enum class ScenarioKind : std::uint8_t { Recorded, Requested, SingleSetting };

struct Scenario {
  ScenarioKind kind = ScenarioKind::Recorded;
  std::string name;  // "recorded", or the settings changed ("expandable_segments:True")
  ReplayResult result;
  // peak reserved of the recorded run minus this one's (negative: more); only without an OOM in either.
  std::optional<std::int64_t> saved_vs_recorded;
};

struct CapacitySearch {
  std::string settings;                   // "recorded" or the best setting's name
  std::optional<std::uint64_t> capacity;  // none: not even the largest tried capacity ran without an OOM
  std::uint64_t searched_up_to = 0;
  std::size_t replays = 0;
};

struct WhatIfResult {
  std::string path;
  std::int64_t device = 0;
  std::size_t trace_entries = 0;
  bool standard = false;  // no option given: the standard scenarios
  AllocatorConfig recorded_config;
  bool settings_recorded = false;  // the file has allocator_settings (else PyTorch's defaults are assumed)
  std::optional<std::uint64_t> capacity;  // as given, or derived from the recording's oom entry
  bool capacity_from_oom = false;
  Scenario recorded;                // always; carries the validation
  std::vector<Scenario> scenarios;  // the requested one, or the single settings of the standard set
  std::optional<std::size_t> best;  // index into scenarios: the lowest peak reserved below the recorded
  std::vector<CapacitySearch> capacity_searches;  // standard only: recorded, then best
  std::vector<std::string> notes;
  bool validated() const { return recorded.result.validation && recorded.result.validation->matched; }
};

// Throws oomscope::Error (InvalidArgument) naming the file when it has no trace to replay or a setting is
// wrong; Cancelled when `stop` is requested.
WhatIfResult run_whatif(const snapshot::Snapshot& snap, const WhatIfOptions& options, ProgressSink& progress,
                        const std::stop_token& stop = {});

}  // namespace oomscope::allocator
