#pragma once
// Two recordings on one axis, in a window of the Live page's own: recording A (the one the page shows)
// and B (chosen with "Compare with Recording…"), read on a worker through a JobTracker; a rank chooser and
// a shift for B (steps or seconds, as core aligned the runs); the chart (RecordingOverlayChart); below it
// the gap in words, the per-rank table (RecordingGapModel) and why there is no site table. A rank or
// shift change asks core for the overlay again, on the same worker. A B that is not a recording is
// refused with the error naming the file.

#include <QString>
#include <QWidget>
#include <memory>

#include "core/live/client/recording_overlay.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace oomscope::ui {

class JobTracker;
class RecordingGapModel;
class RecordingOverlayChart;
class SortedTableView;
struct JobError;

class LiveRecordingOverlay : public QWidget {
  Q_OBJECT

 public:
  explicit LiveRecordingOverlay(QWidget* parent = nullptr);

  // Reads both recordings on the worker, then lays B over A at the rank of A's verdict (the rank that ran
  // out, or came closest to its capacity).
  void open(const QString& pathA, const QString& pathB);
  void setRank(int rank);
  void setShift(double shift);  // steps or seconds, as the axis is

  RecordingOverlayChart* chart() const { return m_chart; }
  RecordingGapModel* gapModel() const { return m_gap; }
  QString errorText() const;
  QString explanationText() const;
  QString sitesText() const;
  JobTracker* job() const { return m_job; }

 signals:
  void overlayShown();
  void failed(const QString& message);

 private:
  struct Runs {
    live::OverlayRun a, b;
  };
  void runsRead(const std::shared_ptr<const Runs>& runs);
  void recompute();
  void shown(const std::shared_ptr<const live::RecordingOverlay>& overlay);
  void showFailure(const JobError& failure);

  std::shared_ptr<const Runs> m_runs;
  QString m_pathA, m_pathB;
  bool m_filling = false;  // the controls are being set from a result: no recompute
  QLabel* m_title = nullptr;
  QLabel* m_error = nullptr;
  QLabel* m_axis = nullptr;
  QComboBox* m_rank = nullptr;
  QDoubleSpinBox* m_shift = nullptr;
  RecordingOverlayChart* m_chart = nullptr;
  QLabel* m_explanation = nullptr;
  SortedTableView* m_table = nullptr;
  RecordingGapModel* m_gap = nullptr;
  QLabel* m_sites = nullptr;
  JobTracker* m_job = nullptr;
};

}  // namespace oomscope::ui
