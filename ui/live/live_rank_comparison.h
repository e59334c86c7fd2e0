#pragma once
// The Live page's ranks compared as one job (what `report RECORDING` prints): a verdict line, the
// imbalance line and the per-rank table (RankComparisonModel). For an opened recording core compares the
// file itself (compare_recording_ranks, so the figures are the CLI's); for a live session it compares
// the session's store (compare_store_ranks) on a worker through a JobTracker, at most every two seconds and
// only when the session changed. The panel computes nothing: it shows what core returned. It also holds
// "Compare with Recording…", enabled once a recording is shown, which lays a second recording over it in
// a window of its own (LiveRecordingOverlay).

#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>

#include "ui/widgets/sorted_table_view.h"

namespace oomscope::live {
class LiveSession;
struct RecordingComparison;
}  // namespace oomscope::live

class QLabel;
class QPushButton;
class QTimer;

namespace oomscope::ui {

class JobTracker;
class LiveRecordingOverlay;
class RankComparisonModel;
struct JobError;

class LiveRankComparison : public QWidget {
  Q_OBJECT

 public:
  explicit LiveRankComparison(QWidget* parent = nullptr);

  // A live session: compared from its store while it runs.
  void showSession(std::shared_ptr<live::LiveSession> session);
  // An opened recording: compared from the file, once.
  void showRecording(const QString& path);
  // Starts the next comparison now if the session changed (tests; the timer does it every two seconds).
  void refreshNow();
  // Lays the recording at `path` over the one shown (the button's file dialog ends here); false when no
  // recording is shown.
  bool compareWith(const QString& path);

  RankComparisonModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QString verdictText() const;
  QString noteText() const;
  JobTracker* job() const { return m_job; }
  LiveRecordingOverlay* overlay() const { return m_overlay; }
  QPushButton* compareButton() const { return m_compare; }

 signals:
  void overlayOpened(oomscope::ui::LiveRecordingOverlay* overlay);

 private:
  void poll();
  void show(const std::shared_ptr<const live::RecordingComparison>& c);
  void showFailure(const JobError& failure);
  void chooseRecording();

  std::shared_ptr<live::LiveSession> m_session;
  QString m_recording;  // the recording shown, empty for a live session
  std::uint64_t m_seenVersion = ~0ull;
  QLabel* m_verdict = nullptr;
  QLabel* m_imbalance = nullptr;
  QLabel* m_note = nullptr;
  QPushButton* m_compare = nullptr;
  SortedTableView* m_table = nullptr;
  RankComparisonModel* m_model = nullptr;
  JobTracker* m_job = nullptr;
  QTimer* m_timer = nullptr;
  LiveRecordingOverlay* m_overlay = nullptr;
};

}  // namespace oomscope::ui
