#pragma once
// The snapshot window's Overlay page: open a second run (File dialog or openSecondRun), read on a worker
// (JobTracker), and show both Active Memory Timelines on one axis (aligned by step markers, else by time,
// with a shift for B) above the gap explained: the bytes at each run's peak by site and category.

#include <QWidget>
#include <memory>

#include "ui/snapshot/run_overlay_result.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableView;

namespace oomscope::ui {

class JobTracker;
class OverlayWidget;
class SiteDiffModel;

class OverlayPage : public QWidget {
  Q_OBJECT

 public:
  explicit OverlayPage(QWidget* parent = nullptr);
  void setBaseline(std::shared_ptr<const SnapshotDocument> a);  // this window's run (A)
  void openSecondRun(const QString& path);                      // on the worker; emits overlaid or failed
  void setResult(std::shared_ptr<const RunOverlayResult> result);
  const std::shared_ptr<const RunOverlayResult>& result() const { return m_result; }

  OverlayWidget* chart() const { return m_chart; }
  SiteDiffModel* siteModel() const { return m_model; }
  QTableView* siteView() const { return m_view; }
  QLabel* summary() const { return m_summary; }
  QDoubleSpinBox* shiftBox() const { return m_shift; }

 signals:
  void overlaid();
  void failed(const QString& message);

 private:
  void showProfile(const snapshot::ProfileDiff& d);
  std::shared_ptr<const SnapshotDocument> m_a;
  std::shared_ptr<const RunOverlayResult> m_result;
  JobTracker* m_job = nullptr;
  QPushButton* m_open = nullptr;
  QLabel* m_summary = nullptr;
  QDoubleSpinBox* m_shift = nullptr;
  OverlayWidget* m_chart = nullptr;
  SiteDiffModel* m_model = nullptr;
  QTableView* m_view = nullptr;
};

}  // namespace oomscope::ui
