#pragma once
// The Ranks window: a job's per-rank PyTorch snapshots read as one job (core/snapshot/rank_job.h says
// whether they are and on what evidence; rank_comparison.h compares them). The verdict (which rank ran out,
// or with no OOM the one closest to its capacity) and the evidence, a table of the ranks (peaks, capacity,
// OOM), and the imbalance with what the verdict rank holds beyond the median rank. Loading runs on a
// JobTracker worker with progress and Cancel. Files that are not one job each open in a SnapshotWindow.

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/snapshot/rank_comparison.h"
#include "core/util/progress.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace oomscope::ui {

class RankImbalanceModel;
class JobTracker;
class SnapshotRankModel;

// What the worker hands back: the comparison, or why the files are not one job.
struct RankJobResult {
  bool is_job = false;
  std::string not_a_job;
  snapshot::RankComparison comparison;
  std::vector<std::string> failed;  // "FILE: problem" for files named like a rank's that could not be read
  QStringList paths;                // as given
};
std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 std::stop_token stop);

class RanksWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit RanksWindow(QWidget* parent = nullptr);

  // Several PyTorch snapshots (by content): opens them in a new RanksWindow and returns true.
  static bool openIfSnapshots(const QStringList& paths);
  // A folder with no .xplane.pb capture but .pickle/.pkl snapshots: opens those in a new RanksWindow.
  static bool openIfSnapshotFolder(const QString& dir);
  static RanksWindow* openFiles(const QStringList& paths);

  void load(const QStringList& paths);  // on a worker; emits loaded or failed
  void cancel();
  void setResult(std::shared_ptr<const RankJobResult> result);  // shows it now (tests)

  SnapshotRankModel* rankModel() const { return m_ranks; }
  RankImbalanceModel* imbalanceModel() const { return m_imbalance; }
  QLabel* verdictLabel() const { return m_verdict; }
  QLabel* evidenceLabel() const { return m_evidence; }

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void loadEnded(const QString& message);

  JobTracker* m_load = nullptr;
  SnapshotRankModel* m_ranks = nullptr;
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
