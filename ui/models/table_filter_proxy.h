#pragma once
// Sorting by raw value and filtering by text for the record tables. The filter matches, case-insensitively,
// any text or id column (a module name, a program id), never the formatted byte figures.

#include <QSortFilterProxyModel>

namespace oomscope::ui {

class TableFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit TableFilterProxy(QObject* parent = nullptr);

  // Plain text, not a pattern: "jit_step(3" matches literally.
  void setFilterText(const QString& text);
  QString filterText() const { return m_text; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_text;
};

}  // namespace oomscope::ui
