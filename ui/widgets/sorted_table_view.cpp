// A sorted table over a model (sorted_table_view.h).

#include "ui/widgets/sorted_table_view.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

namespace oomscope::ui {

SortedTableView::SortedTableView(QAbstractItemModel* source, QWidget* parent, int sortRole)
    : QTableView(parent), m_proxy(new QSortFilterProxyModel(this)) {
  m_proxy->setSourceModel(source);
  m_proxy->setSortRole(sortRole);
  setModel(m_proxy);
  setSortingEnabled(true);
  sortByColumn(-1, Qt::AscendingOrder);  // the model's order until a header is clicked
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setAlternatingRowColors(true);
  setWordWrap(false);
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
}

QModelIndex SortedTableView::sourceIndex(const QModelIndex& viewIndex) const {
  return m_proxy->mapToSource(viewIndex);
}

void SortedTableView::useCompactRows() {
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
}

}  // namespace oomscope::ui
