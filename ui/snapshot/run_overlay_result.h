#pragma once
// What the Overlay page shows, built on a worker and immutable: the second run's document, the diff of the
// two (the site table) and the two timelines on one axis (core/snapshot/run_overlay.h). Two Kineto traces
// have timelines but no sites (kineto_overlay.h, profile_diff.h); two JAX memory profiles have sites but no
// time axis, so no timelines.

#include <memory>
#include <optional>

#include "core/snapshot/profile_diff.h"
#include "core/snapshot/run_overlay.h"
#include "core/snapshot/snapshot_diff.h"
#include "ui/snapshot/snapshot_document.h"

namespace oomscope::ui {

struct RunOverlayResult {
  std::shared_ptr<const SnapshotDocument> a, b;
  snapshot::SnapshotDiff diff;                   // snapshots
  snapshot::RunOverlay overlay;                  // snapshots and Kineto traces
  std::optional<snapshot::ProfileDiff> profile;  // Kineto traces and JAX memory profiles
  bool noTimeAxis() const { return profile && profile->format == "pprof"; }
};

// Reads `pathB` (of a's kind: a PyTorch snapshot, a Kineto trace or a JAX memory profile, else an
// oomscope::Error naming it) and lays it over `a`.
std::shared_ptr<const RunOverlayResult> buildRunOverlay(std::shared_ptr<const SnapshotDocument> a,
                                                        const QString& pathB, ProgressSink& progress,
                                                        const std::stop_token& stop);

}  // namespace oomscope::ui
