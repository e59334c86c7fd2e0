#pragma once
// The Ranks window's pane for the rank selected in its ranks table: what that rank holds at its own peak,
// by category and by allocation site (SnapshotRankDetailModel, the figures of the CLI's `report DIR`), under
// a line naming the rank, its file and device and where the categories came from (the built-in rules, or
// the user's first). Open Snapshot (and a double-click on the rank's row) asks for the rank's file in a
// snapshot window: openRequested. A job of Kineto traces has no stacks, and the pane says so instead.

#include <QString>
#include <QWidget>
#include <optional>

#include "core/snapshot/rank_comparison.h"

class QLabel;
class QPushButton;
class QTableView;

namespace oomscope::ui {

class SnapshotRankDetailModel;

class RankDetailPane : public QWidget {
  Q_OBJECT

 public:
  explicit RankDetailPane(QWidget* parent = nullptr);

  // Nothing selected: "Select a rank to see what it holds at its peak".
  void showNothing();
  // c.ranks[index] of a job of snapshots.
  void showRank(const snapshot::RankComparison& c, std::size_t index);
  // A job of Kineto traces: no stacks, no categories; `path` the selected rank's trace ("" = none selected).
  void showKineto(std::optional<std::int64_t> rank, const QString& path);

  QLabel* headerLabel() const { return m_header; }
  QLabel* messageLabel() const { return m_message; }
  QPushButton* openButton() const { return m_open; }
  SnapshotRankDetailModel* categoriesModel() const { return m_categories; }
  SnapshotRankDetailModel* sitesModel() const { return m_sites; }
  QTableView* categoriesView() const { return m_categoriesView; }
  QTableView* sitesView() const { return m_sitesView; }
  QString path() const { return m_path; }  // the file Open Snapshot opens; "" = none

  // A word-wrapped, selectable label of plain text (names from files are never markup).
  static QLabel* plainLabel();

 signals:
  void openRequested(const QString& path);

 private:
  void showMessage(const QString& message);

  QLabel* m_header = nullptr;
  QLabel* m_message = nullptr;
  QLabel* m_categoriesTitle = nullptr;
  QLabel* m_sitesTitle = nullptr;
  QPushButton* m_open = nullptr;
  QWidget* m_tables = nullptr;
  SnapshotRankDetailModel* m_categories = nullptr;
  SnapshotRankDetailModel* m_sites = nullptr;
  QTableView* m_categoriesView = nullptr;
  QTableView* m_sitesView = nullptr;
  QString m_path;
};

}  // namespace oomscope::ui
