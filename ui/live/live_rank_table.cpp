#include "ui/live/live_rank_table.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include "ui/live/rank_table_model.h"

namespace oomscope::ui {

LiveRankTable::LiveRankTable(QWidget* parent) : QTableView(parent) {
  m_ranks = new RankTableModel(this);
  setObjectName(QStringLiteral("rankTable"));
  m_sorted = new QSortFilterProxyModel(this);
  m_sorted->setSourceModel(m_ranks);
  m_sorted->setSortRole(Qt::UserRole);
  m_sorted->setDynamicSortFilter(true);
  setModel(m_sorted);
  setSortingEnabled(true);
  // The soonest forecast OOM on top, then the other ranks by headroom.
  sortByColumn(RankTableModel::Forecast, Qt::AscendingOrder);
  setContextMenuPolicy(Qt::CustomContextMenu);
  verticalHeader()->hide();
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  setSelectionBehavior(QAbstractItemView::SelectRows);
}

QModelIndex LiveRankTable::shownIndex(int row) const {
  return m_sorted->mapFromSource(m_ranks->index(row, 0));
}

int LiveRankTable::modelRow(const QModelIndex& shown) const {
  return shown.isValid() ? m_sorted->mapToSource(shown).row() : -1;
}

int LiveRankTable::chartOf(const QModelIndex& shown) const {
  const QModelIndex source = m_sorted->mapToSource(shown);
  return source.isValid() ? m_ranks->row(source.row()).index : -1;
}

}  // namespace oomscope::ui
