#pragma once
// One opened non-XSpace file for the GUI, immutable once loaded on a worker: a PyTorch snapshot with its
// analysis (timeline of the default device, report, text), or a Kineto trace, raw memory timeline or pprof
// profile with its text report and a memory-over-time series.

#include <QString>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/file_kind.h"
#include "core/snapshot/hta_raw.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/pprof_profile.h"
#include "core/snapshot/snapshot_analysis.h"
#include "core/util/progress.h"

namespace oomscope::ui {

struct SeriesPoint {
  double x = 0;  // seconds from the start
  double y = 0;  // bytes
};

struct SnapshotDocument {
  QString path;
  snapshot::FileKind kind = snapshot::FileKind::Unknown;
  std::shared_ptr<const snapshot::Snapshot> snap;
  std::shared_ptr<const snapshot::SnapshotReport> report;  // snapshots
  std::int64_t device = 0;                                 // the device shown (snapshots)
  // The user's category rules the report was categorised with (docs/categories.md); null: built-in only.
  std::shared_ptr<const snapshot::CategoryRules> rules;
  const snapshot::DeviceAnalysis* deviceAnalysis() const;  // of `device`, or nullptr
  std::shared_ptr<const snapshot::KinetoTrace> kineto;
  std::shared_ptr<const snapshot::HtaTimeline> hta;
  std::shared_ptr<const snapshot::PprofProfile> pprof;
  std::string reportText;  // what `oomscope-cli report` prints
  // Memory over time for Kineto / HTA files (the first accelerator's live bytes); OOM marker times.
  std::vector<SeriesPoint> series;
  std::vector<double> oomTimes;
  QString seriesTitle;
};

// Recognises the file by content and reads it. Throws oomscope::Error (or Cancelled) like the CLI. A
// snapshot is categorised with `rules` first (null: the built-in rules only); other kinds ignore them.
std::shared_ptr<const SnapshotDocument> loadSnapshotDocument(
    const QString& path, ProgressSink& progress, const std::stop_token& stop = {},
    std::shared_ptr<const snapshot::CategoryRules> rules = nullptr);

// The snapshot document `doc` analysed again with other category rules (null: built-in only): the same
// snapshot, a new report and text. On a worker (JobTracker); throws Cancelled when asked to stop.
std::shared_ptr<const SnapshotDocument> recategorised(const SnapshotDocument& doc,
                                                      std::shared_ptr<const snapshot::CategoryRules> rules,
                                                      const std::stop_token& stop = {});

}  // namespace oomscope::ui
