#pragma once
// The Simulator page: controls for every simulator input across the top, the recursion tree of run A (and
// of run B when comparing) in the middle, the memory gauge, the counters of both runs with their
// difference and the selected attempt's details on the right, the attempt list below.
//
// Each run is simulated (or its trace read) to the end once, on a worker thread (SimRunJobs), with its
// tree laid out there too; the page then only moves one cursor over each run's views (SimRunPane), so
// Next/Back/Play/Run to end cost the same for a 10-node and a 100,000-node run and never block the window.
// Both runs step together: at global step s each run shows min(s, its last step).

#include <QWidget>
#include <array>
#include <cstdint>

#include "ui/sim/run_data.h"

class QLabel;
class QTabWidget;
class QTimer;

namespace oomscope::ui {

class SimControls;
class SimEventTableModel;
class SimMemoryGauge;
class SimNotice;
class SimRunJobs;
class SimRunNavigator;
class SimRunPane;
class SimSidePanel;
class SimTotalsModel;
class SimTransportBar;
class SimTreeView;

class SimulatorPage : public QWidget {
  Q_OBJECT

 public:
  explicit SimulatorPage(QWidget* parent = nullptr);
  ~SimulatorPage() override;

  SimControls* controls() const { return m_controls; }
  SimTotalsModel* totalsModel() const { return m_totals; }
  SimEventTableModel* eventModel(int slot) const;
  SimTreeView* treeView(int slot) const;
  SimMemoryGauge* gauge(int slot) const;
  RunPtr run(int slot) const;
  QString errorText() const;
  QString detailsText() const;
  QString alternativesText() const;
  // The notice above the trees: a run too large to keep whole, and a real run's agreement with its
  // prediction.
  QString noticeText() const;

  std::int64_t step() const { return m_step; }
  std::int64_t lastStep() const;
  bool isBusy() const;
  bool isPlaying() const { return m_playing; }

  void stepTo(std::int64_t step);
  void next() { stepTo(m_step + 1); }
  void back() { stepTo(m_step - 1); }
  void reset() { stepTo(0); }
  void runToEnd();
  void setPlaying(bool play);
  // Re-simulates now instead of after the edit debounce.
  void simulateNow();
  // Reads a trace into run A (slot 0) or B (slot 1); errors show in the page's banner.
  void openTrace(const QString& path, int slot);
  // Reads a real trainer's trace (docs/sim-trace-format.md) into run A, sets the controls to the config in
  // its header and simulates that as run B, the prediction; editing the controls re-predicts B.
  void openRealRunWithPrediction(const QString& path);
  bool predicting() const { return m_predict; }
  void selectEvent(int slot, std::int64_t eventId);

 signals:
  void runsReady();
  void stepChanged(qint64 step);
  void failed(const QString& message);

 private:
  void startJobs();
  void runArrived(int slot, const RunPtr& run);
  void jobFailed(const QString& message);
  void refreshDetails();
  // The runs in the main window's navigator.
  void createNavigatorSource();
  void updateNavigatorSource();
  void tick();
  std::int64_t slotStep(int slot) const;
  void chooseTrace(int slot);

  SimControls* m_controls = nullptr;
  SimTransportBar* m_transport = nullptr;
  SimTotalsModel* m_totals = nullptr;
  SimRunJobs* m_jobs = nullptr;
  std::array<SimRunPane*, 2> m_panes{};
  QTabWidget* m_eventTabs = nullptr;
  SimRunNavigator* m_navigator = nullptr;
  SimSidePanel* m_side = nullptr;
  QLabel* m_error = nullptr;
  SimNotice* m_notice = nullptr;
  QLabel* m_status = nullptr;
  QTimer* m_debounce = nullptr;
  QTimer* m_playTimer = nullptr;

  std::int64_t m_step = 0;
  bool m_playing = false;
  bool m_endPending = false;
  bool m_predict = false;         // A is a real run, B the simulator's prediction from the controls
  bool m_predictPending = false;  // A's trace is loading: set the controls from its header when it arrives
  double m_playCarry = 0;
  qint64 m_lastTickMs = 0;
  int m_detailSlot = 0;
  std::int64_t m_detailEvent = -1;  // -1: follow the current attempt
};

// For the main window: MainWindow::addPage(createSimulatorPage(parent), "Simulator").
QWidget* createSimulatorPage(QWidget* parent = nullptr);

}  // namespace oomscope::ui
