#pragma once
// The Ranks window: a job's per-rank PyTorch snapshots read as one job (core/snapshot/rank_job.h says
// whether they are and on what evidence; rank_comparison.h compares them). The verdict (which rank ran out,
// or with no OOM the one closest to its capacity) and the evidence, a table of the ranks (peaks, capacity,
// OOM), and the imbalance with what the verdict rank holds beyond the median rank. A job's per-rank Kineto
// traces (core/snapshot/kineto_ranks.h) open here too, with their own table (KinetoRankModel). Loading runs
// on a JobTracker worker with progress and Cancel; the capacity field (the CLI's --capacity) recomputes the
// verdict on the same worker from the files already read. Files that are not one job each open in a
// SnapshotWindow. Selecting a rank shows what it holds at its peak (RankDetailPane); a double-click or the
// pane's Open Snapshot opens the rank's file in a SnapshotWindow. The Categories menu (CategoryRulesMenu)
// compares the snapshots again with the user's category rules, on the same worker.

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>

#include "ui/snapshot/rank_job_result.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace oomscope::ui {

class CategoryRulesMenu;
class RankDetailPane;
class RankImbalanceModel;
class JobTracker;
class KinetoRankModel;
class SnapshotRankModel;

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
  // Compares the snapshots again with the rules of `path` first ("" = the built-in rules only), keeping the
  // capacity; the rules are read on the worker. Emits categoriesApplied (and remembers `path` for the
  // session), or categoryRulesFailed with the file, line and problem (as the CLI words it) in the status
  // bar and nothing else changed. A job of Kineto traces has no stacks: the menu is disabled.
  void applyCategoryRules(const QString& path);
  void setResult(std::shared_ptr<const RankJobResult> result);  // shows it now (tests)
  const std::shared_ptr<const RankJobResult>& result() const { return m_result; }
  // Selects the row of `rank` in the ranks table (the detail pane follows); false when there is none.
  bool selectRank(std::int64_t rank);

  SnapshotRankModel* rankModel() const { return m_ranks; }
  KinetoRankModel* kinetoRankModel() const { return m_kinetoRanks; }
  QLineEdit* capacityEdit() const { return m_capacity; }
  QLabel* statusLabel() const { return m_status; }
  RankImbalanceModel* imbalanceModel() const { return m_imbalance; }
  QLabel* verdictLabel() const { return m_verdict; }
  QLabel* evidenceLabel() const { return m_evidence; }
  QTableView* rankView() const { return m_rankView; }
  QTableView* imbalanceView() const { return m_imbalanceView; }
  RankDetailPane* detailPane() const { return m_detail; }
  CategoryRulesMenu* categoriesMenu() const { return m_rulesMenu; }

 signals:
  void loaded();
  void failed(const QString& message);
  void categoriesApplied();
  void categoryRulesFailed(const QString& message);
  // A double-click on a rank's row or the pane's Open Snapshot: the window opens `path` in a SnapshotWindow.
  void openRequested(const QString& path);

 private:
  void loadEnded(const QString& message);
  void showResult();
  void showSelected();
  void updateRulesMenu();
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
  RankDetailPane* m_detail = nullptr;
  CategoryRulesMenu* m_rulesMenu = nullptr;
  bool m_rulesJob = false;  // the worker's job is applyCategoryRules's: its failure changes nothing else
  std::shared_ptr<const RankJobResult> m_result;
};

}  // namespace oomscope::ui
