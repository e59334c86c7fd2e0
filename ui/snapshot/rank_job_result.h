#pragma once
// The Ranks window's worker jobs (ranks_window.h): reading a job's per-rank PyTorch snapshots or Kineto
// traces and comparing them (core/snapshot/rank_comparison.h, kineto_ranks.h), and comparing the files
// already read again with another capacity or other category rules. Both run on a JobTracker worker.

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/kineto_ranks.h"
#include "core/snapshot/rank_comparison.h"
#include "core/util/progress.h"

namespace oomscope::ui {

// What the worker hands back: the comparison, or why the files are not one job. The files read stay in it,
// so that another capacity or other rules compare again without reading them (recomputeRankJob).
struct RankJobResult {
  bool is_job = false;
  std::string not_a_job;
  snapshot::RankComparison comparison;                   // snapshots
  std::optional<snapshot::KinetoRankJob> kineto;         // Kineto traces: set instead of `comparison`
  std::optional<std::int64_t> capacity;                  // the capacity given, if any
  std::shared_ptr<const snapshot::CategoryRules> rules;  // the user's category rules, if any (snapshots)
  std::vector<std::string> failed;  // "FILE: problem" for files named like a rank's that could not be read
  QStringList paths;                // as given
  std::vector<std::shared_ptr<const snapshot::Snapshot>> snaps;
  snapshot::RankGrouping grouping;
  std::vector<std::shared_ptr<const snapshot::KinetoTrace>> traces;
};

// By content: a PyTorch allocator snapshot, a Chrome/Kineto trace.
bool isTorchSnapshotFile(const QString& path);
bool isChromeTraceFile(const QString& path);

// Every path a Kineto trace (by content): read as per-rank traces; else as per-rank snapshots.
std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 const std::stop_token& stop,
                                                 std::optional<std::int64_t> capacity = std::nullopt);
// The same files compared with another capacity (none: each file's own) and category rules (null: the
// built-in rules only).
std::shared_ptr<const RankJobResult> recomputeRankJob(const RankJobResult& r,
                                                      std::optional<std::int64_t> capacity,
                                                      std::shared_ptr<const snapshot::CategoryRules> rules);

}  // namespace oomscope::ui
