#include "ui/analysis/plan_page.h"

#include <QChartView>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

#include "ui/analysis/analysis_result.h"
#include "ui/analysis/analysis_widgets.h"
#include "ui/analysis/range_banner.h"
#include "ui/charts/plan_charts.h"
#include "ui/charts/zoom_chart_view.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

PlanPage::PlanPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("planPage"));
  m_curve = new PlanCurveChart(this);
  m_roles = new RoleBarChart(this);
  m_summary = makeHeading(this);
  m_note = makeNote(QString(), this);

  m_curveView = new ZoomChartView(m_curve->chart(), this);
  m_curveView->setObjectName(QStringLiteral("planCurveView"));
  m_curveView->setMinimumHeight(260);
  auto* rolesView = new QChartView(m_roles->chart(), this);
  rolesView->setObjectName(QStringLiteral("roleBarView"));
  rolesView->setRenderHint(QPainter::Antialiasing);
  rolesView->setFixedHeight(170);

  auto* charts = new QWidget(this);
  auto* chartsLayout = new QVBoxLayout(charts);
  chartsLayout->setContentsMargins(0, 0, 0, 0);
  chartsLayout->addWidget(m_curveView, 1);
  chartsLayout->addWidget(rolesView);
  m_empty = makeNote(QString(), this);
  m_empty->setAlignment(Qt::AlignCenter);
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_empty);
  m_stack->addWidget(charts);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 10, 12, 8);
  layout->addWidget(m_summary);
  m_banner = new RangeBanner(this);
  layout->addWidget(m_banner);
  layout->addWidget(m_note);
  layout->addWidget(m_stack, 1);
  connect(m_curveView, &ZoomChartView::rangeSelected, this, [this](double lo, double hi) {
    emit positionRangeSelected(qint64(std::ceil(lo)), qint64(std::floor(hi)));
  });
  clear();
}

bool PlanPage::selectInstruction(const QString& instruction, bool shade) {
  if (!m_result || !m_result->report->plan) return false;
  const analysis::MemoryCurve& c = m_result->report->plan->curve;
  const std::string name = instruction.toStdString();
  qint64 first = -1, last = -1;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c.instruction_at(i) == name) {
      if (first < 0) first = qint64(i);
      last = qint64(i);
    }
  if (first < 0) return false;
  m_selectedInstruction = instruction;
  if (shade)
    m_curve->setHighlight(
        first, last, tr("instruction %1 (events %2..%3)").arg(safeText(instruction)).arg(first).arg(last));
  return true;
}

void PlanPage::highlightPositions(qint64 from, qint64 to, const QString& label) {
  m_curve->setHighlight(from, to, label);
}

void PlanPage::clear() { setResult(nullptr); }

bool PlanPage::showsChart() const { return m_stack->currentIndex() == 1; }
QString PlanPage::summaryText() const { return m_summary->text(); }

void PlanPage::setResult(const std::shared_ptr<const AnalysisResult>& result) {
  m_result = result;
  m_selectedInstruction.clear();
  if (!result) {
    m_curve->clear();
    m_roles->clear();
    m_summary->setText(tr("Memory plan"));
    m_note->clear();
    m_empty->setText(tr("Open a capture to draw the memory plan of its module."));
    m_stack->setCurrentIndex(0);
    return;
  }
  const PlanCurveSeries& s = result->plan;
  if (s.empty()) {
    m_curve->clear();
    m_roles->clear();
    m_summary->setText(s.module.isEmpty() ? tr("Memory plan") : tr("Memory plan of %1").arg(s.module));
    m_note->clear();
    m_empty->setText(s.emptyReason);
    m_stack->setCurrentIndex(0);
    return;
  }
  m_curve->setSeries(s);
  m_roles->setSeries(s);
  m_curveView->setXAxis(m_curve->xAxis(), m_curve->xAxis()->min(), m_curve->xAxis()->max());
  const analysis::PlanAnalysis& p = *result->report->plan;
  QString where;
  if (p.peak_event_index >= 0)
    where = p.peak_phase == analysis::Phase::NoBackward
                ? tr(", a program without a backward pass")
                : tr(", in the %1").arg(QString::fromLatin1(analysis::to_string(p.peak_phase)));
  if (const auto other = p.other_phase_peak())
    where += tr("; the %1 peaks at %2 at %3")
                 .arg(QString::fromLatin1(analysis::to_string(other->phase)), bytesText(other->bytes),
                      safeText(other->instruction));
  m_summary->setText(tr("Plan of %1: peak %2 at %3%4 (derived)")
                         .arg(s.module, bytesText(s.peakBytes), s.peakInstruction, where));
  m_summary->setToolTip(
      tr("Peak %1 at event %2 of %3").arg(bytesWithExact(s.peakBytes)).arg(s.peakIndex).arg(s.eventCount));
  QString note =
      tr("Temp block %1, parameters %2 (donated %3), non-aliased outputs %4 (read); XLA rematerialized %5 "
         "instructions (read). ")
          .arg(bytesText(p.temp_bytes), bytesText(p.parameters_bytes), bytesText(p.donation.donated_bytes),
               bytesText(p.outputs_bytes))
          .arg(p.remat_instructions);
  for (const analysis::PlanPattern& pat : p.patterns) {
    switch (pat.kind) {
      case analysis::PatternKind::SplitKPartials:
        note += tr("Split-K: %1 keeps %2 of f32 partial sums, %3x its result (a forward transient). ")
                    .arg(safeText(pat.instruction), bytesText(pat.bytes))
                    .arg(pat.factor);
        break;
      case analysis::PatternKind::ConvOutputTwice:
        note += tr("Convolution output held twice: %1 (%2) and its copy %3. ")
                    .arg(safeText(pat.instruction), bytesText(pat.bytes), safeText(pat.other_instruction));
        break;
      case analysis::PatternKind::HostPrefetch:
        note += tr("%1 host prefetch buffer(s) (copy-start), %2 at the peak. ")
                    .arg(pat.count)
                    .arg(bytesText(pat.bytes));
        break;
    }
  }
  for (const analysis::MemorySpaceTotals& t : p.other_memory_spaces)
    if (t.color == 5 && t.parameters_bytes + t.outputs_bytes + t.temp_bytes > 0)
      note += tr("Host offload (memory space 5): %1, not in this curve (read). ")
                  .arg(bytesText(t.parameters_bytes + t.outputs_bytes + t.temp_bytes));
  note += m_curve->capacityNote().isEmpty() ? QString() : m_curve->capacityNote() + QLatin1Char(' ');
  note +=
      tr("Wheel zooms, drag pans, shift+drag selects a program-order range, double-click shows the whole "
         "plan.");
  m_note->setText(note);
  m_stack->setCurrentIndex(1);
}

}  // namespace oomscope::ui
