#pragma once
// What the What-if panel shows for one choice of capacity and settings, built on a worker: the replay of
// the snapshot's trace under the recorded settings (with its check against the recording) and under the
// choice (core/allocator/whatif.h), and the recorded and replayed reserved/allocated curves, downsampled on
// the worker to the chart's resolution with every peak kept (core/allocator/whatif_curves.h).

#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/allocator/whatif.h"
#include "core/allocator/whatif_curves.h"
#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

namespace oomscope::ui {

// A capacity and settings as `oomscope-cli whatif --capacity C --set K:V...` takes them.
struct WhatIfChoice {
  std::optional<std::uint64_t> capacity;  // none: as recorded
  std::vector<std::string> settings;      // "key:value", PYTORCH_CUDA_ALLOC_CONF spelling
  bool operator==(const WhatIfChoice&) const = default;
  // "expandable_segments:True, 24.0 GiB" or "as recorded".
  QString describe() const;
};

struct WhatIfView {
  WhatIfChoice choice;
  allocator::WhatIfResult result;  // recorded run + one scenario: the choice
  std::int64_t lastIndex = -1;     // the trace's last entry
  // Downsampled over the whole trace (index -1 .. lastIndex); the replayed curve ends where its replay
  // stopped (an OOM).
  std::vector<allocator::CurvePoint> recorded, replayed;
  // The same curves in full (a point at each entry that changed a figure), which the chart downsamples
  // again for a zoomed range; the replayed one covers entries up to replayedTo.
  std::vector<allocator::CurvePoint> recordedFull, replayedFull;
  std::int64_t replayedTo = -1;
  const allocator::Scenario& scenario() const { return result.scenarios.front(); }
};

// The number of points each curve is downsampled to.
inline constexpr std::size_t kWhatIfCurvePoints = 2048;

// Throws oomscope::Error naming the file (no trace, a bad setting), Cancelled when `stop` is requested.
WhatIfView buildWhatIfView(const snapshot::Snapshot& snap, std::int64_t device, const WhatIfChoice& choice,
                           ProgressSink& progress, const std::stop_token& stop);

// The standard scenarios (`oomscope-cli whatif SNAPSHOT` without options) of the device.
allocator::WhatIfResult buildStandardScenarios(const snapshot::Snapshot& snap, std::int64_t device,
                                               ProgressSink& progress, const std::stop_token& stop);

}  // namespace oomscope::ui
