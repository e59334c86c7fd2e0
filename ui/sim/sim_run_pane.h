#pragma once
// One run of the Simulator page (A or B): its header line and recursion tree (this widget), and the views
// of it that the page places elsewhere: its attempt list (a table in the page's tabs) and its memory gauge
// (in the side panel). The page tells it which run to show and at which step; a click on a node or a row
// comes back as eventClicked().

#include <QWidget>
#include <cstdint>

#include "ui/sim/run_data.h"

class QLabel;
class QTableView;

namespace oomscope::ui {

class SimEventTableModel;
class SimMemoryGauge;
class SimTreeView;

class SimRunPane : public QWidget {
  Q_OBJECT

 public:
  // slot 0 is run A, 1 is run B. The attempt list and the gauge are made here, without a parent: the page
  // puts them into its layouts.
  explicit SimRunPane(int slot, QWidget* parent = nullptr);

  QString letter() const;
  const RunPtr& run() const { return m_run; }
  SimTreeView* tree() const { return m_tree; }
  SimEventTableModel* events() const { return m_events; }
  QTableView* eventView() const { return m_eventView; }
  SimMemoryGauge* gauge() const { return m_gauge; }

  // Shows `run` (null: none) at `step` of its own.
  void setRun(const RunPtr& run, std::int64_t step);
  // Moves the tree, list, gauge and header to `step` (the run's own step). `busy`: a job is running (the
  // header of an empty pane says "simulating…"); `pinned`: the user pinned an attempt of this run, so the
  // list does not follow the current one.
  void showStep(std::int64_t step, bool busy, bool pinned);
  // Brings attempt `eventId` into view in the tree and selects its row.
  void revealEvent(std::int64_t eventId);

 signals:
  void eventClicked(qint64 eventId);

 private:
  int m_slot = 0;
  RunPtr m_run;
  QLabel* m_header = nullptr;
  SimTreeView* m_tree = nullptr;
  SimEventTableModel* m_events = nullptr;
  QTableView* m_eventView = nullptr;
  SimMemoryGauge* m_gauge = nullptr;
};

}  // namespace oomscope::ui
