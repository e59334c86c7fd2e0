#pragma once
// The Live page: attach to running trainers (one agent per rank), read them from a Prometheus server, or
// open a recording, and watch a chart per rank (with its OOM forecast drawn to the limit line), the rank
// table (sorted by the soonest forecast OOM, then by headroom), a banner naming the soonest forecast OOM,
// the alerts, and the ranks compared as one job (LiveRankComparison, with "Compare with Recording…" once a
// recording is open); record the session to a file. From a Prometheus view, a rank's context menu attaches
// directly to its agent's stats socket (in a window of its own) for 10 Hz detail and events. The client runs
// on its own thread and writes into a LiveSession; the page polls the session's version four times a second
// and redraws only the charts on screen, so 64 ranks at 10 Hz stay responsive.

#include <QWidget>
#include <memory>
#include <vector>

#include "core/live/client/client.h"
#include "core/live/client/session.h"
#include "core/live/prom/prom_source.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QListWidget;
class QPushButton;
class QScrollArea;
class QTableView;
class QTimer;

namespace oomscope::ui {

class DemoTrainer;
class DirectAttach;
class LiveAlertList;
class LiveChart;
class LiveForecastBanner;
class LivePrometheus;
class LiveRankComparison;
class LiveRankNavigator;
class LiveRankTable;
class LiveRecordingOpener;
class RankTableModel;
struct JobError;

class LivePage : public QWidget {
  Q_OBJECT

 public:
  explicit LivePage(QWidget* parent = nullptr);
  ~LivePage() override;

  // Attaches to the endpoints (replacing any session). Rules: empty = the defaults.
  void attach(const std::vector<live::Endpoint>& endpoints, const std::string& token = {},
              std::vector<live::AlertRule> rules = {});
  // Reads the ranks from a Prometheus server (replacing any session): history first (the shown window, at
  // least 10 minutes), then new samples every second, on the source's own thread.
  void attachPrometheus(const std::string& server, const std::string& selector,
                        std::vector<live::AlertRule> rules = {});
  // Drill-down from a Prometheus view: attaches directly to the stats socket of the rank with this
  // session index, in a new window (emits directAttached). False, with the reason in the status line and
  // directAttachFailed, when it cannot: no Prometheus view, no stats_endpoint published, or (after a
  // connection attempt on a worker) unreachable.
  bool attachDirectly(int index);
  // Opens a recording (on a worker); emits recordingOpened or failed (and reports either to the main
  // window through the page's PageFileOpener: recent files, the error box).
  void openRecording(const QString& path);
  // A file this page opens: named *.oomlive, or starting like a recording (the main window's File > Open,
  // recent files and drops hand those to the page).
  static bool opensFile(const QString& path);
  void detach();
  // Records the running session to `path`; false with a message when it cannot.
  bool startRecording(const QString& path, QString* error = nullptr);
  void stopRecording();
  bool isRecording() const;

  // A program that serves (`PROGRAM ARGS --serve unix:PATH`): enables "Start the demo trainer and attach".
  void setDemoTrainer(const QString& program, const QStringList& args = {});
  // Starts it and attaches (what the dialog's button does). False, with the status saying why, on failure.
  bool startDemoTrainer(std::vector<live::AlertRule> rules = {});

  // Seconds shown (0 = everything). Live sessions start at 10 minutes, recordings at everything.
  void setWindowSeconds(int seconds);
  void refreshNow();      // cuts every chart's data at once (tests, benchmarks)
  void refreshVisible();  // what the 4 Hz timer does: cuts the charts on screen

  live::LiveSession* session() const { return m_session.get(); }
  RankTableModel* rankModel() const { return m_ranks; }
  QTableView* rankTable() const;   // its model sorts rankModel() (forecast by default)
  QLabel* forecastBanner() const;  // hidden before the first forecast
  std::vector<live::PromRankInfo> prometheusRanks() const;
  const std::vector<LiveChart*>& charts() const { return m_charts; }
  QListWidget* alertList() const;
  // The ranks compared as one job (verdict, imbalance, per-rank table) and "Compare with Recording…".
  LiveRankComparison* comparison() const { return m_comparison; }
  QString statusText() const;

 signals:
  void recordingOpened(const QString& path, const QString& note);
  void failed(const QString& message);
  // An `oom` event named the snapshot its agent wrote, and the user activated its line in the alert list.
  void openSnapshotRequested(const QString& path);
  void directAttached(LivePage* page);
  void directAttachFailed(const QString& reason);

 private:
  void chooseAttach();
  void chooseRecording();
  void toggleRecording();
  void refresh(bool force);
  void rebuildCharts(int count);
  void resetSession(std::vector<live::AlertRule> rules);
  void showRankMenu(const QPoint& at);
  void rankFailed(const QString& reason);
  void recordingFailed(const JobError& failure);
  void updatePrometheusStatus();
  void showChart(int index);

  std::shared_ptr<live::LiveSession> m_session;
  std::unique_ptr<live::LiveClient> m_client;
  std::unique_ptr<LivePrometheus> m_prom;
  QString m_notice;  // the last drill-down result, shown after the Prometheus status
  std::uint64_t m_seenVersion = ~0ull;
  bool m_isRecording = false;  // a recording being viewed, not made
  int m_windowSeconds = 600;
  DemoTrainer* m_demo = nullptr;

  QPushButton* m_attach = nullptr;
  QPushButton* m_open = nullptr;
  QPushButton* m_record = nullptr;
  QComboBox* m_window = nullptr;
  QLabel* m_status = nullptr;
  LiveForecastBanner* m_banner = nullptr;
  QScrollArea* m_scroll = nullptr;
  QWidget* m_grid = nullptr;
  QGridLayout* m_gridLayout = nullptr;
  std::vector<LiveChart*> m_charts;
  RankTableModel* m_ranks = nullptr;
  LiveRankTable* m_table = nullptr;
  LiveAlertList* m_alerts = nullptr;
  LiveRankComparison* m_comparison = nullptr;
  QTimer* m_timer = nullptr;
  LiveRankNavigator* m_navigator = nullptr;
  LiveRecordingOpener* m_recordings = nullptr;  // opening a recording (a new session or open supersedes it)
  DirectAttach* m_direct = nullptr;             // the drill-down to a rank's own agent
};

}  // namespace oomscope::ui
