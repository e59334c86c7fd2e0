#pragma once
// The snapshot window's What-if page (issue 24): pick a capacity and allocator settings (the settings of
// `oomscope-cli whatif --set`), see reserved and allocated over the trace replayed under them beside the
// recorded curves, the first failure as the allocator saw it, and the standard scenarios' table. Each choice
// replays on a JobTracker worker with progress and Cancel; a new choice supersedes the run before it (the
// tracker's generations), so a stale replay never lands. The standard scenarios run once per snapshot on a
// second tracker, with a progress bar of their own above their table (Cancel stops both). Double-clicking
// a scenario's row makes it the choice.

#include <QWidget>
#include <memory>

#include "core/snapshot/snapshot.h"
#include "ui/snapshot/whatif_view.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;

namespace oomscope::ui {

class JobTracker;
class WhatIfChart;
class WhatIfOomModel;
class WhatIfScenarioModel;

class WhatIfPanel : public QWidget {
  Q_OBJECT

 public:
  explicit WhatIfPanel(QWidget* parent = nullptr);
  ~WhatIfPanel() override;

  // A snapshot with a trace on `device`: runs the standard scenarios and the recorded choice.
  void setSnapshot(std::shared_ptr<const snapshot::Snapshot> snap, std::int64_t device);
  // Sets the controls to `choice` and replays it (the same as editing them).
  void setChoice(const WhatIfChoice& choice);
  // What the controls say now; nullopt with errorText() set when a value is refused.
  std::optional<WhatIfChoice> choice();
  void cancel();

  JobTracker* choiceJob() const { return m_choiceJob; }
  JobTracker* standardJob() const { return m_standardJob; }
  QProgressBar* standardProgress() const { return m_standardProgress; }
  WhatIfChart* chart() const { return m_chart; }
  WhatIfOomModel* oomModel() const { return m_oomModel; }
  WhatIfScenarioModel* scenarioModel() const { return m_scenarioModel; }
  QLabel* summary() const { return m_summary; }
  QLabel* validation() const { return m_validation; }
  QLabel* searches() const { return m_searches; }
  QString errorText() const;
  const std::shared_ptr<const WhatIfView>& view() const { return m_view; }

 signals:
  void viewChanged();      // a choice's replay landed
  void standardChanged();  // the standard scenarios landed

 private:
  QWidget* buildControls();
  void scheduleRun();  // coalesces edits (a spin box's arrows) into one run
  void run();
  void showView(std::shared_ptr<const WhatIfView> view);
  void showStandard(const std::shared_ptr<const allocator::WhatIfResult>& result);
  void updateBusy();
  void jobEnded(const QString& message);

  std::shared_ptr<const snapshot::Snapshot> m_snap;
  std::int64_t m_device = 0;
  std::shared_ptr<const WhatIfView> m_view;
  JobTracker* m_choiceJob = nullptr;
  JobTracker* m_standardJob = nullptr;
  QTimer* m_debounce = nullptr;
  bool m_settingControls = false;
  QLineEdit* m_capacity = nullptr;
  QComboBox* m_expandable = nullptr;
  QComboBox* m_maxSplitMode = nullptr;  // as recorded, none, a limit (m_maxSplit)
  QSpinBox* m_maxSplit = nullptr;
  QSpinBox* m_divisions = nullptr;
  QDoubleSpinBox* m_gc = nullptr;
  QLabel* m_error = nullptr;
  QLabel* m_validation = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_searches = nullptr;
  QProgressBar* m_progress = nullptr;          // the choice's replay
  QProgressBar* m_standardProgress = nullptr;  // the standard scenarios' replays
  QPushButton* m_cancel = nullptr;
  WhatIfChart* m_chart = nullptr;
  WhatIfOomModel* m_oomModel = nullptr;
  WhatIfScenarioModel* m_scenarioModel = nullptr;
  QTableView* m_scenarioView = nullptr;
  QTableView* m_oomView = nullptr;
};

}  // namespace oomscope::ui
