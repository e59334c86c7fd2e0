#pragma once
// The Ranks window: a job's per-rank PyTorch snapshots read as one job (core/snapshot/rank_job.h says
// whether they are and on what evidence; rank_comparison.h compares them). The verdict (which rank ran out,
// or with no OOM the one closest to its capacity) and the evidence, a table of the ranks (peaks, capacity,
// OOM), and the imbalance with what the verdict rank holds beyond the median rank. A job's per-rank Kineto
// traces (core/snapshot/kineto_ranks.h) open here too, with their own table (KinetoRankModel). Loading runs
// on a JobTracker worker with progress and Cancel; the capacity field (the CLI's --capacity) recomputes the
// verdict on the same worker from the files already read. Files that are not one job each open in a
// SnapshotWindow.

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/snapshot/kineto_ranks.h"
#include "core/snapshot/rank_comparison.h"
#include "core/util/progress.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace oomscope::ui {

class RankImbalanceModel;
class JobTracker;
class KinetoRankModel;
class SnapshotRankModel;

// What the worker hands back: the comparison, or why the files are not one job. The files read stay in it,
// so that another capacity is compared again without reading them (recomputeRankJob).
struct RankJobResult {
  bool is_job = false;
  std::string not_a_job;
  snapshot::RankComparison comparison;            // snapshots
  std::optional<snapshot::KinetoRankJob> kineto;  // Kineto traces: set instead of `comparison`
  std::optional<std::int64_t> capacity;           // the capacity given, if any
  std::vector<std::string> failed;  // "FILE: problem" for files named like a rank's that could not be read
  QStringList paths;                // as given
  std::vector<std::shared_ptr<const snapshot::Snapshot>> snaps;
  snapshot::RankGrouping grouping;
  std::vector<std::shared_ptr<const snapshot::KinetoTrace>> traces;
};
// Every path a Kineto trace (by content): read as per-rank traces; else as per-rank snapshots.
std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 const std::stop_token& stop,
                                                 std::optional<std::int64_t> capacity = std::nullopt);
// The same files compared with another capacity (none: each file's own).
std::shared_ptr<const RankJobResult> recomputeRankJob(const RankJobResult& r,
                                                      std::optional<std::int64_t> capacity);

class RanksWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit RanksWindow(QWidget* parent = nullptr);

  // Several PyTorch snapshots, or several Kineto traces (by content): opens them in a new RanksWindow and
  // returns true.
  static bool openIfSnapshots(const QStringList& paths);
  // A folder with no .xplane.pb capture but .pickle/.pkl snapshots (else .json/.json.gz Kineto traces):
  // opens those in a new RanksWindow.
  static bool openIfSnapshotFolder(const QString& dir);
  static RanksWindow* openFiles(const QStringList& paths);

  void load(const QStringList& paths);  // on a worker; emits loaded or failed
  void cancel();
  // The capacity field's text: empty for each file's own capacity, else a byte size (docs/byte-sizes.md).
  // Recomputes on the worker; a bad size is named in the status bar and changes nothing.
  void applyCapacity(const QString& text);
  void setResult(std::shared_ptr<const RankJobResult> result);  // shows it now (tests)

  SnapshotRankModel* rankModel() const { return m_ranks; }
  KinetoRankModel* kinetoRankModel() const { return m_kinetoRanks; }
  QLineEdit* capacityEdit() const { return m_capacity; }
  QLabel* statusLabel() const { return m_status; }
  RankImbalanceModel* imbalanceModel() const { return m_imbalance; }
  QLabel* verdictLabel() const { return m_verdict; }
  QLabel* evidenceLabel() const { return m_evidence; }

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void loadEnded(const QString& message);
  void showKineto(const snapshot::KinetoRankJob& j, const QString& failures);

  JobTracker* m_load = nullptr;
  SnapshotRankModel* m_ranks = nullptr;
  KinetoRankModel* m_kinetoRanks = nullptr;
  QSortFilterProxyModel* m_rankProxy = nullptr;
  QLineEdit* m_capacity = nullptr;
  QPushButton* m_applyCapacity = nullptr;
  RankImbalanceModel* m_imbalance = nullptr;
  QTableView* m_rankView = nullptr;
  QTableView* m_imbalanceView = nullptr;
  QLabel* m_verdict = nullptr;
  QLabel* m_evidence = nullptr;
  QLabel* m_status = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  std::shared_ptr<const RankJobResult> m_result;
};

}  // namespace oomscope::ui
