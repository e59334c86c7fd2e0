#pragma once
// What the Overlay page shows, built on a worker and immutable: the second run's document, the diff of the
// two (the site table) and the two timelines on one axis (core/snapshot/run_overlay.h).

#include <memory>

#include "core/snapshot/run_overlay.h"
#include "core/snapshot/snapshot_diff.h"
#include "ui/snapshot/snapshot_document.h"

namespace oomscope::ui {

struct RunOverlayResult {
  std::shared_ptr<const SnapshotDocument> a, b;
  snapshot::SnapshotDiff diff;
  snapshot::RunOverlay overlay;
};

// Reads `pathB` (a PyTorch snapshot, else an oomscope::Error naming it) and lays it over `a`.
std::shared_ptr<const RunOverlayResult> buildRunOverlay(std::shared_ptr<const SnapshotDocument> a,
                                                        const QString& pathB, ProgressSink& progress,
                                                        std::stop_token stop);

}  // namespace oomscope::ui
