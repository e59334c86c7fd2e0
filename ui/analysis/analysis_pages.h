#pragma once
// The analysis pages of a capture (what `oomscope-cli report` says), behind one entry point:
//   Timeline, Plan, Buffers, Diagnosis (the design order, docs/architecture.md).
//
// AnalysisPages builds the report (core::analysis::build_host_report, the CLI text, chart series) on a
// worker thread through a JobTracker; every request takes a new generation and a superseded result is
// dropped, so a quick succession of module/pool changes only shows the last one. The UI thread only fills
// models and charts from the finished result.
//
// Wiring into the main window (MainWindow does not need to know the pages):
//   auto* analysis = new AnalysisPages(window);                        // QObject child of the window
//   for (const auto& [page, title] : analysis->pages()) tabs->addTab(page, title);   // tabs own the pages
//   connect(window, &MainWindow::captureChanged, analysis,
//           [analysis](const LoadedCapture& c) { analysis->setCapture(c.capture); });   // null = closed
//   // navigator: a module chosen in the tree      -> analysis->selectProgram(programId);
//   // the page's own selector changes it too     -> analysis emits moduleChanged(label, programId)
//   // show only tabs with something real to show -> after resultChanged(), analysis->hasContent(page)
//   // Ctrl+F on the Buffers tab                  -> analysis->buffersPage()->focusFilter()
//   connect(analysis, &AnalysisPages::busyChanged, ...) / analysisFailed(message) for the status bar.
// Pages that no tab took are deleted with the AnalysisPages object.

#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <memory>
#include <optional>

#include "core/capture/capture.h"
#include "ui/analysis/analysis_result.h"
#include "ui/session/job_tracker.h"

class QWidget;

namespace oomscope::ui {

class BuffersPage;
class DiagnosisPage;
class PlanPage;
class TimelinePage;

class AnalysisPages : public QObject {
  Q_OBJECT

 public:
  explicit AnalysisPages(QObject* parent = nullptr);
  ~AnalysisPages() override;

  // A new capture (null: nothing open): the module and the pool go back to the capture's own choice.
  void setCapture(std::shared_ptr<const capture::Capture> capture);
  // Analyse another module, as typed: name, "name(id)" or program id; empty = the capture's default module.
  void setModule(const QString& nameOrId);
  // Analyse the module with this program id.
  void selectProgram(quint64 programId);
  // Back to the module the capture analyses by default.
  void selectDefaultModule();
  // Check against a pool of this size; nullopt = the allocator's capacity read from the capture.
  void setCapacity(std::optional<qint64> bytes);

  // (page, tab title) in the design order (docs/architecture.md): Timeline, Plan, Buffers, Diagnosis.
  QList<QPair<QWidget*, QString>> pages() const;
  // Whether a page has something real to show for the current result (Diagnosis: whenever a capture is open).
  bool hasContent(const QWidget* page) const;

  // Out of line: turning the QPointers into plain pointers needs the pages' complete types.
  DiagnosisPage* diagnosisPage() const;
  BuffersPage* buffersPage() const;
  PlanPage* planPage() const;
  TimelinePage* timelinePage() const;

  std::shared_ptr<const AnalysisResult> result() const { return m_result; }
  bool isBusy() const { return m_jobs.busy(); }
  JobTracker& jobs() { return m_jobs; }
  // Milliseconds the UI thread spent filling the pages with the last result.
  double lastFillMs() const { return m_lastFillMs; }
  // Selections that re-scope every page (recomputed on the worker; the analysed module stays the same):
  // a time range of the capture (ps) or a program-order range of the plan (trace positions).
  void setTimeRange(qint64 fromPs, qint64 toPs);
  void setPositionRange(qint64 from, qint64 to);
  void clearRange();
  bool hasRange() const { return m_timeWindow.has_value() || m_planRange.has_value(); }
  // Selects an instruction on the Plan page and its largest buffer in Buffers.
  void selectInstruction(const QString& instruction);

 signals:
  void resultChanged();  // the pages show a new result, or were cleared
  void moduleChanged(const QString& label, const QString& programId);
  void analysisFailed(const QString& message);
  void busyChanged(bool busy);
  void instructionSelected(const QString& instruction);

 private:
  void setSelector(ModuleSelector selector);
  void request();
  void apply(std::shared_ptr<const AnalysisResult> result);

  JobTracker m_jobs;
  std::shared_ptr<const capture::Capture> m_capture;
  ModuleSelector m_module;
  std::optional<qint64> m_capacity;
  std::optional<std::pair<qint64, qint64>> m_timeWindow;
  std::optional<std::pair<qint64, qint64>> m_planRange;
  ModuleSelector m_rangeModule;  // the module analysed when the range was chosen
  std::shared_ptr<const AnalysisResult> m_result;
  // The last result without a range, of m_capture: clearing a range shows it again instead of analysing the
  // capture again (same module and pool), and a time range reuses its executions.
  std::shared_ptr<const AnalysisResult> m_unranged;
  double m_lastFillMs = 0;

  QPointer<TimelinePage> m_timeline;
  QPointer<PlanPage> m_plan;
  QPointer<BuffersPage> m_buffers;
  QPointer<DiagnosisPage> m_diagnosis;
};

}  // namespace oomscope::ui
