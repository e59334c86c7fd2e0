#include "ui/analysis/analysis_pages.h"

#include <QFileInfo>
#include <ctime>

#include "core/util/safe_text.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/plan_page.h"
#include "ui/analysis/range_banner.h"
#include "ui/analysis/timeline_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

// What the banner says about the result's selection ("" without one).
QString rangeText(const AnalysisResult& r) {
  if (const auto& w = r.request.timeWindow) {
    QString text =
        QObject::tr(
            "Selection: %1 .. %2 of the capture (%3). Executions, allocators, live-at-start groups "
            "and the diagnosis are computed for this time range only.")
            .arg(secondsText(w->first), secondsText(w->second), durationText(w->second - w->first));
    using analysis::WindowCover;
    const auto* plan = r.report->plan ? &*r.report->plan : nullptr;
    if (!r.planWindow || !plan) {
      text += QObject::tr(" The Plan and Buffers show the whole plan.");
    } else if (r.planWindow->cover == WindowCover::Part) {
      if (plan->peak_event_index < 0)
        text += QObject::tr(" The plan ran positions %1 .. %2 in it.")
                    .arg(r.planWindow->first)
                    .arg(r.planWindow->last);
      else
        text += QObject::tr(
                    " The plan ran positions %1 .. %2 in it: the Plan and Buffers show its highest point "
                    "there, %3 at %4 (event %5).")
                    .arg(r.planWindow->first)
                    .arg(r.planWindow->last)
                    .arg(bytesText(plan->peak_bytes), safeText(plan->peak_instruction))
                    .arg(plan->peak_event_index);
    } else if (r.planWindow->cover == WindowCover::Whole) {
      text += QObject::tr(
          " Every position of the plan ran in it, so the Plan and Buffers show the plan's own peak (the "
          "same in every execution).");
    } else if (r.planWindow->cover == WindowCover::Split) {
      text += QObject::tr(
          " It holds the end of one execution and the start of the next, so the Plan and "
          "Buffers show the whole plan.");
    } else {
      text += QObject::tr(" No execution of %1 runs in it; the Plan and Buffers show the whole plan.")
                  .arg(safeText(plan->module_name));
    }
    return text;
  }
  if (const auto& p = r.request.planRange) {
    QString text =
        QObject::tr("Selection: program positions %1 .. %2 of the plan.").arg(p->first).arg(p->second);
    if (r.report->plan && r.report->plan->peak_event_index >= 0)
      text +=
          QObject::tr(" The highest point there is %1 at %2 (event %3); Buffers and the role split show it.")
              .arg(bytesText(r.report->plan->peak_bytes), safeText(r.report->plan->peak_instruction))
              .arg(r.report->plan->peak_event_index);
    return text;
  }
  return {};
}

}  // namespace

AnalysisPages::AnalysisPages(QObject* parent) : QObject(parent) {
  m_timeline = new TimelinePage;
  m_plan = new PlanPage;
  m_buffers = new BuffersPage;
  m_diagnosis = new DiagnosisPage;

  connect(m_diagnosis, &DiagnosisPage::programRequested, this, &AnalysisPages::selectProgram);
  connect(m_diagnosis, &DiagnosisPage::defaultModuleRequested, this, &AnalysisPages::selectDefaultModule);
  connect(m_diagnosis, &DiagnosisPage::capacityRequested, this,
          [this](qint64 bytes) { setCapacity(bytes > 0 ? std::optional(bytes) : std::nullopt); });
  connect(m_timeline, &TimelinePage::instructionClicked, this, &AnalysisPages::selectInstruction);
  connect(m_timeline, &TimelinePage::timeRangeSelected, this, &AnalysisPages::setTimeRange);
  connect(m_plan, &PlanPage::positionRangeSelected, this, &AnalysisPages::setPositionRange);
  connect(m_buffers, &BuffersPage::lifetimeSelected, this,
          [this](qint64 from, qint64 to, const QString& label) {
            if (m_plan) m_plan->highlightPositions(from, to, label);
            if (m_timeline) m_timeline->highlightPositions(from, to, label);
          });
  for (RangeBanner* banner : {m_timeline->rangeBanner(), m_plan->rangeBanner(), m_buffers->rangeBanner(),
                              m_diagnosis->rangeBanner()})
    connect(banner, &RangeBanner::clearRequested, this, &AnalysisPages::clearRange);
  connect(&m_jobs, &JobTracker::busyChanged, this, [this](bool busy) {
    if (m_diagnosis)
      m_diagnosis->setBusy(busy, busy ? tr("Analysing %1\u2026").arg(m_jobs.subject()) : QString());
    emit busyChanged(busy);
  });
  connect(&m_jobs, &JobTracker::failed, this, [this](const JobError& error) {
    if (m_diagnosis) m_diagnosis->showError(error.text());
    emit analysisFailed(error.text());
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
  m_unranged.reset();
  m_module = {};
  m_capacity.reset();
  m_timeWindow.reset();
  m_planRange.reset();
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
  m_timeWindow.reset();
  m_planRange.reset();
  if (m_capture) request();
}

void AnalysisPages::setCapacity(std::optional<qint64> bytes) {
  m_capacity = bytes;
  if (m_capture) request();
}

void AnalysisPages::setTimeRange(qint64 fromPs, qint64 toPs) {
  if (!m_capture || toPs <= fromPs) return;
  m_timeWindow = std::pair(fromPs, toPs);
  m_planRange.reset();
  request();
}

void AnalysisPages::setPositionRange(qint64 from, qint64 to) {
  if (!m_capture || to < from) return;
  m_planRange = std::pair(from, to);
  m_timeWindow.reset();
  request();
}

void AnalysisPages::clearRange() {
  if (!hasRange()) return;
  m_timeWindow.reset();
  m_planRange.reset();
  if (m_capture) request();
}

void AnalysisPages::selectInstruction(const QString& instruction) {
  // The buffer it allocates (when listed) is selected in Buffers, which shades that buffer's lifetime;
  // otherwise the Plan shades the instruction's own positions.
  const bool buffer = m_buffers && m_buffers->selectInstruction(instruction);
  if (m_plan) m_plan->selectInstruction(instruction, !buffer);
  emit instructionSelected(instruction);
}

void AnalysisPages::request() {
  // A range keeps the module analysed when it was chosen (a window could otherwise pick another default).
  if (!hasRange())
    m_rangeModule = {};
  else if (m_rangeModule.isDefault() && m_result && m_result->report->plan)
    m_rangeModule = {m_result->report->plan->program_id, QString()};
  // A time range borrows the executions and the plan's placement of the result shown without a range.
  const bool lend = m_timeWindow && m_unranged && m_unranged->request.capture == m_capture;
  AnalysisRequest req{m_capture,
                      m_module.isDefault() ? m_rangeModule : m_module,
                      m_capacity,
                      m_timeWindow,
                      m_planRange,
                      lend ? m_unranged->report : nullptr,
                      lend ? m_unranged->planTimeline : nullptr};
  const QString subject =
      m_module.programId ? tr("program %1").arg(*m_module.programId)
      : m_module.name.isEmpty()
          ? QFileInfo(QString::fromStdString(single_line_safe(m_capture->path()))).fileName()
          : m_module.name;
  // Back to no range with the module and pool of the last result without one: that result again, through
  // the tracker so that it arrives like any other (after the newest request, never over a later one).
  if (!hasRange() && m_unranged && m_unranged->request.capture == m_capture &&
      m_unranged->request.module.programId == req.module.programId &&
      m_unranged->request.module.name == req.module.name && m_unranged->request.capacity == req.capacity) {
    m_jobs.start<std::shared_ptr<const AnalysisResult>>(
        subject, [kept = m_unranged](ProgressSink&, const std::stop_token&) { return kept; },
        [this](const std::shared_ptr<const AnalysisResult>& result) { apply(result); });
    return;
  }
  m_jobs.start<std::shared_ptr<const AnalysisResult>>(
      subject, [req](ProgressSink&, const std::stop_token& stop) { return buildAnalysis(req, stop); },
      [this](const std::shared_ptr<const AnalysisResult>& result) { apply(result); });
}

void AnalysisPages::apply(std::shared_ptr<const AnalysisResult> result) {
  // CPU time of this (the UI) thread, not wall time: what filling the pages costs the event loop, which a
  // loaded machine (other processes, ctest -j) does not inflate.
  const auto threadCpuMs = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
  };
  const double started = threadCpuMs();
  m_result = std::move(result);
  if (m_result && !m_result->request.timeWindow && !m_result->request.planRange &&
      m_result->request.capture == m_capture)
    m_unranged = m_result;
  if (m_timeline) m_timeline->setResult(m_result);
  if (m_plan) m_plan->setResult(m_result);
  if (m_buffers) m_buffers->setResult(m_result);
  if (m_diagnosis) m_diagnosis->setResult(m_result);
  const QString range = m_result ? rangeText(*m_result) : QString();
  for (RangeBanner* banner :
       {m_timeline ? m_timeline->rangeBanner() : nullptr, m_plan ? m_plan->rangeBanner() : nullptr,
        m_buffers ? m_buffers->rangeBanner() : nullptr, m_diagnosis ? m_diagnosis->rangeBanner() : nullptr})
    if (banner) banner->setText(range);
  m_lastFillMs = threadCpuMs() - started;
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
