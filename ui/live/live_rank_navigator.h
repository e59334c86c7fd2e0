#pragma once
// The Live page's ranks in the main window's navigator, in session order, each with its headroom (or its
// state while that is unknown), led by its OOM forecast when one is forecast (the full sentence in the
// tooltip). Picking a rank there selects its row in the page's rank table and asks the page to show its
// chart (chartRequested); selecting a row in the table selects the rank there. The NavigatorSource it
// feeds is a direct child of the page, where the main window looks for it.

#include <QObject>

class QWidget;

namespace oomscope::ui {

class NavigatorSource;
class LiveRankTable;

class LiveRankNavigator : public QObject {
  Q_OBJECT

 public:
  // `table` belongs to `page`.
  LiveRankNavigator(LiveRankTable* table, QWidget* page);

  NavigatorSource* source() const { return m_source; }
  // Lists the rank model's rows again (after each refresh of the page).
  void update();

 signals:
  void chartRequested(int chart);

 private:
  LiveRankTable* m_table;
  NavigatorSource* m_source = nullptr;
};

}  // namespace oomscope::ui
