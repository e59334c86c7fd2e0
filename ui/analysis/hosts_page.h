#pragma once
// The Hosts page of a multi-host run: which host ran out first and on what evidence (one sentence), then a
// table of every host (peak, capacity, executions, retries, first sign of running out, verdict). Double-click
// a host to show its pages.

#include <QWidget>

#include "ui/session/capture_session.h"

class QLabel;

namespace oomscope::ui {

class HostTableModel;
class TablePage;

class HostsPage : public QWidget {
  Q_OBJECT

 public:
  explicit HostsPage(QWidget* parent = nullptr);

  void setRun(const LoadedRun& run);
  HostTableModel* model() const { return m_model; }
  TablePage* table() const { return m_table; }
  QString headline() const;
  // Whether the run's captures were taken together (core/analysis/report/capture_runs.h), shown above the
  // table unless they were ("" then, and for one capture).
  QString runsNote() const;

 signals:
  void hostActivated(int host);  // index into the run's hosts

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void fitRows();  // rows as tall as their wrapped verdicts, once pending resizes are done

  HostTableModel* m_model = nullptr;
  TablePage* m_table = nullptr;
  QLabel* m_headline = nullptr;
  QLabel* m_verdict = nullptr;
  QLabel* m_failures = nullptr;
  QLabel* m_runs = nullptr;
};

}  // namespace oomscope::ui
