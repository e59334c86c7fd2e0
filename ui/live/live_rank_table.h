#pragma once
// The Live page's rank table: one row per rank (RankTableModel), sorted by the soonest forecast OOM, then
// by headroom (the sort is kept as rows change). The page fills the model; a row's rank is found through
// chartOf() (its chart's index) whichever order the view shows.

#include <QTableView>

class QSortFilterProxyModel;

namespace oomscope::ui {

class RankTableModel;

class LiveRankTable : public QTableView {
  Q_OBJECT

 public:
  explicit LiveRankTable(QWidget* parent = nullptr);

  RankTableModel* ranks() const { return m_ranks; }
  // The view's index of the model's row `row` (invalid when not shown), and back (-1: none).
  QModelIndex shownIndex(int row) const;
  int modelRow(const QModelIndex& shown) const;
  // The session index (the chart) of the rank at `shown`, or -1.
  int chartOf(const QModelIndex& shown) const;

 private:
  RankTableModel* m_ranks = nullptr;
  QSortFilterProxyModel* m_sorted = nullptr;
};

}  // namespace oomscope::ui
