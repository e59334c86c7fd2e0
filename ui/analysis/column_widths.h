#pragma once
// Remembers the column widths a user gives a table, per table name, across runs (in the SettingsStore under
// "tables/<name>/columnWidths").
//
// Only widths set by the user's own dragging are stored, not the automatic fit a page does for each new
// capture; they are put back whenever the table's model is reset (after the page's own fit) while the
// column count still matches, so a table whose columns changed keeps its automatic fit.

#include <QObject>
#include <QString>

class QTableView;

namespace oomscope::ui {

class SettingsStore;

class ColumnWidthKeeper : public QObject {
  Q_OBJECT

 public:
  // Keeps view's widths under name; a child of the view. store null = SettingsStore::instance().
  static ColumnWidthKeeper* attach(QTableView* view, const QString& name, SettingsStore* store = nullptr);

  QString key() const;
  // Applies the stored widths now (also done on every model reset); false when none fit.
  bool restore();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  ColumnWidthKeeper(QTableView* view, const QString& name, SettingsStore* store);
  void save();

  QTableView* m_view;
  QString m_name;
  SettingsStore* m_store;
  bool m_dragging = false;  // the mouse is down on the header: resizes now are the user's
  bool m_restoring = false;
};

}  // namespace oomscope::ui
