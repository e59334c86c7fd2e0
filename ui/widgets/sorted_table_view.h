#pragma once
// A table of a model's rows, sorted when a header is clicked, as every table of the window is: the model
// sits behind a QSortFilterProxyModel that sorts by `sortRole` (the raw number, so 9 MiB comes before
// 10 MiB; Qt::UserRole by default, RecordTableModel::SortRole for the record tables), rows in the model's
// own order until a header is clicked, a whole row selected at a time, no row numbers, one line per row,
// the last column stretched to the view's edge. Callers that map a clicked row back to the model use
// sourceIndex(); the proxy belongs to the view.

#include <QTableView>

class QAbstractItemModel;
class QSortFilterProxyModel;

namespace oomscope::ui {

class SortedTableView : public QTableView {
  Q_OBJECT

 public:
  explicit SortedTableView(QAbstractItemModel* source, QWidget* parent = nullptr,
                           int sortRole = Qt::UserRole);

  QSortFilterProxyModel* proxy() const { return m_proxy; }
  // The model's index of a row as the view shows it (sorted).
  QModelIndex sourceIndex(const QModelIndex& viewIndex) const;
  // Rows a line of text high plus a small margin, for the dense tables (segments, scenarios).
  void useCompactRows();

 private:
  QSortFilterProxyModel* m_proxy;
};

}  // namespace oomscope::ui
