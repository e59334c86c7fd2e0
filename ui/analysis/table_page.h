#pragma once
// A page holding one record table: sortable, optionally with a text filter above it, and a footer that says
// how many rows are shown. The Modules and Allocators pages are TablePages over their models.

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;

namespace oomscope::ui {

class RecordTableModel;
class TableFilterProxy;

class TablePage : public QWidget {
  Q_OBJECT

 public:
  struct Options {
    QString noun;             // "module": the footer says "9 modules"
    bool filterable = false;  // shows a filter box
    QString filterHint;       // placeholder text of the filter box
    QString notes;            // a line under the table: where the numbers come from
    int sortColumn = 0;
    Qt::SortOrder sortOrder = Qt::DescendingOrder;
  };

  TablePage(RecordTableModel* model, Options options, QWidget* parent = nullptr);

  QTableView* view() const { return m_view; }
  TableFilterProxy* proxy() const { return m_proxy; }
  QLineEdit* filterEdit() const { return m_filter; }  // null unless filterable
  // Puts the keyboard focus in the filter box (Ctrl+F).
  void focusFilter();
  // Puts a widget (a range banner) above the table; the page takes it.
  void addTopWidget(QWidget* widget);

 private:
  void updateFooter();
  void fitColumns();
  void fitHeight();

  RecordTableModel* m_model;
  Options m_options;
  TableFilterProxy* m_proxy = nullptr;
  QTableView* m_view = nullptr;
  QLineEdit* m_filter = nullptr;
  QLabel* m_footer = nullptr;
  QLabel* m_notes = nullptr;
};

}  // namespace oomscope::ui
