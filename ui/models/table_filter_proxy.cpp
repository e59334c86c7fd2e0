#include "ui/models/table_filter_proxy.h"

#include "ui/models/record_table_model.h"

namespace oomscope::ui {

TableFilterProxy::TableFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RecordTableModel::SortRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void TableFilterProxy::setFilterText(const QString& text) {
  const QString trimmed = text.trimmed();
  if (trimmed == m_text) return;
  m_text = trimmed;
  invalidateRowsFilter();
}

bool TableFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QString& needle = m_text;
  if (needle.isEmpty()) return true;
  const auto* records = qobject_cast<const RecordTableModel*>(sourceModel());
  if (!records) return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
  for (int col = 0; col < records->columnCount(); ++col) {
    if (!records->isTextColumn(col)) continue;
    const QString text = records->index(sourceRow, col, sourceParent).data(Qt::DisplayRole).toString();
    if (text.contains(needle, Qt::CaseInsensitive)) return true;
  }
  return false;
}

}  // namespace oomscope::ui
