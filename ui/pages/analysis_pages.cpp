#include "ui/pages/analysis_pages.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include "core/util/safe_text.h"
#include "ui/pages/analysis_result.h"
#include "ui/pages/buffers_page.h"
#include "ui/pages/diagnosis_page.h"
#include "ui/pages/plan_page.h"
#include "ui/pages/timeline_page.h"

namespace oomscope::ui {

AnalysisPages::AnalysisPages(QObject* parent) : QObject(parent) {
  m_timeline = new TimelinePage;
  m_plan = new PlanPage;
  m_buffers = new BuffersPage;
  m_diagnosis = new DiagnosisPage;

  connect(m_diagnosis, &DiagnosisPage::programRequested, this, &AnalysisPages::selectProgram);
  connect(m_diagnosis, &DiagnosisPage::defaultModuleRequested, this, &AnalysisPages::selectDefaultModule);
  connect(m_diagnosis, &DiagnosisPage::capacityRequested, this,
          [this](qint64 bytes) { setCapacity(bytes > 0 ? std::optional(bytes) : std::nullopt); });
  connect(&m_jobs, &JobTracker::busyChanged, this, [this](bool busy) {
    if (m_diagnosis)
      m_diagnosis->setBusy(busy, busy ? tr("Analysing %1\u2026").arg(m_jobs.subject()) : QString());
    emit busyChanged(busy);
  });
  connect(&m_jobs, &JobTracker::failed, this, [this](const QString&, const QString& message) {
    if (m_diagnosis) m_diagnosis->showError(message);
    emit analysisFailed(message);
  });
}

AnalysisPages::~AnalysisPages() {
  m_jobs.cancel();
  // Pages no tab widget took are still ours.
  for (QWidget* page : {static_cast<QWidget*>(m_timeline), static_cast<QWidget*>(m_plan),
                        static_cast<QWidget*>(m_buffers), static_cast<QWidget*>(m_diagnosis)})
    if (page && !page->parent()) delete page;
}

DiagnosisPage* AnalysisPages::diagnosisPage() const { return m_diagnosis; }
BuffersPage* AnalysisPages::buffersPage() const { return m_buffers; }
PlanPage* AnalysisPages::planPage() const { return m_plan; }
TimelinePage* AnalysisPages::timelinePage() const { return m_timeline; }

QList<QPair<QWidget*, QString>> AnalysisPages::pages() const {
  return {{m_timeline, tr("Timeline")},
          {m_plan, tr("Plan")},
          {m_buffers, tr("Buffers")},
          {m_diagnosis, tr("Diagnosis")}};
}

bool AnalysisPages::hasContent(const QWidget* page) const {
  if (!m_result || !page) return false;
  if (page == m_diagnosis) return true;
  if (page == m_timeline) return !m_result->timeline.empty();
  if (page == m_plan) return !m_result->plan.empty();
  if (page == m_buffers) return m_result->report->plan && !m_result->report->plan->live_at_peak.empty();
  return false;
}

void AnalysisPages::setCapture(std::shared_ptr<const capture::Capture> capture) {
  m_capture = std::move(capture);
  m_module = {};
  m_capacity.reset();
  if (!m_capture) {
    m_jobs.cancel();
    apply(nullptr);
    return;
  }
  request();
}

void AnalysisPages::setModule(const QString& nameOrId) { setSelector({std::nullopt, nameOrId.trimmed()}); }

void AnalysisPages::selectProgram(quint64 programId) { setSelector({programId, QString()}); }

void AnalysisPages::selectDefaultModule() { setSelector({}); }

void AnalysisPages::setSelector(ModuleSelector selector) {
  m_module = std::move(selector);
  if (m_capture) request();
}

void AnalysisPages::setCapacity(std::optional<qint64> bytes) {
  m_capacity = bytes;
  if (m_capture) request();
}

void AnalysisPages::request() {
  AnalysisRequest req{m_capture, m_module, m_capacity};
  const QString subject =
      m_module.programId ? tr("program %1").arg(*m_module.programId)
      : m_module.name.isEmpty()
          ? QFileInfo(QString::fromStdString(single_line_safe(m_capture->path()))).fileName()
          : m_module.name;
  m_jobs.start<std::shared_ptr<const AnalysisResult>>(
      subject, [req](ProgressSink&, std::stop_token stop) { return buildAnalysis(req, stop); },
      [this](const std::shared_ptr<const AnalysisResult>& result) { apply(result); });
}

void AnalysisPages::apply(std::shared_ptr<const AnalysisResult> result) {
  QElapsedTimer timer;
  timer.start();
  m_result = std::move(result);
  if (m_timeline) m_timeline->setResult(m_result);
  if (m_plan) m_plan->setResult(m_result);
  if (m_buffers) m_buffers->setResult(m_result);
  if (m_diagnosis) m_diagnosis->setResult(m_result);
  m_lastFillMs = double(timer.nsecsElapsed()) / 1e6;
  emit resultChanged();
  if (m_result && m_result->report->plan) {
    const auto& p = *m_result->report->plan;
    emit moduleChanged(QStringLiteral("%1(%2)")
                           .arg(QString::fromStdString(single_line_safe(p.module_name)))
                           .arg(p.program_id),
                       QString::number(p.program_id));
  }
}

}  // namespace oomscope::ui
