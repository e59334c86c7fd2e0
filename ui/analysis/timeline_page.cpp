#include "ui/analysis/timeline_page.h"

#include <QChart>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/analysis/analysis_result.h"
#include "ui/analysis/analysis_widgets.h"
#include "ui/analysis/range_banner.h"
#include "ui/charts/plan_runtime_overlay.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/zoom_chart_view.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

TimelinePage::TimelinePage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("timelinePage"));
  m_chart = new TimelineChart(this);
  m_summary = makeHeading(this);
  m_note = makeNote(QString(), this);
  m_fit = new QPushButton(tr("Fit executions"), this);
  m_fit->setToolTip(tr("Zoom onto the analysed module's executions"));
  m_whole = new QPushButton(tr("Whole capture"), this);
  m_whole->setToolTip(tr("Show the whole time range (double-click the chart or press Home)"));
  auto* header = new QHBoxLayout;
  header->addWidget(m_summary, 1);
  header->addWidget(m_fit, 0, Qt::AlignTop);
  header->addWidget(m_whole, 0, Qt::AlignTop);

  m_view = new ZoomChartView(m_chart->chart(), this);
  m_view->setObjectName(QStringLiteral("timelineView"));
  m_view->setMinimumHeight(300);
  m_empty = makeNote(QString(), this);
  m_empty->setAlignment(Qt::AlignCenter);
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_empty);
  m_stack->addWidget(m_view);
  m_overlay = new PlanRuntimeOverlay(m_chart, this);
  connect(m_overlay, &PlanRuntimeOverlay::instructionClicked, this, &TimelinePage::instructionClicked);
  connect(m_view, &ZoomChartView::valueClicked, this, &TimelinePage::clickAt);
  connect(m_view, &ZoomChartView::rangeSelected, this, [this](double lo, double hi) {
    emit timeRangeSelected(qint64(std::llround(lo * 1e12)), qint64(std::llround(hi * 1e12)));
  });
  connect(m_chart->chart(), &QChart::plotAreaChanged, m_overlay, &PlanRuntimeOverlay::refresh);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 10, 12, 8);
  layout->addLayout(header);
  m_banner = new RangeBanner(this);
  layout->addWidget(m_banner);
  layout->addWidget(m_note);
  layout->addWidget(m_stack, 1);
  connect(m_fit, &QPushButton::clicked, this, &TimelinePage::fitExecutions);
  connect(m_whole, &QPushButton::clicked, m_view, &ZoomChartView::resetZoom);
  clear();
}

void TimelinePage::clear() { setResult(nullptr); }

void TimelinePage::highlightPositions(qint64 from, qint64 to, const QString& label) {
  if (from < 0)
    m_overlay->clearHighlight();
  else
    m_overlay->setHighlight(from, to, label);
}

void TimelinePage::clickAt(double seconds) {
  if (auto hit = m_overlay->hitAt(seconds)) emit instructionClicked(hit->instruction, hit->position);
}
bool TimelinePage::showsChart() const { return m_stack->currentIndex() == 1; }
QString TimelinePage::summaryText() const { return m_summary->text(); }

void TimelinePage::fitExecutions() {
  const auto& ex = m_chart->series().executions;
  if (ex.empty() || !m_chart->xAxis()) return;
  qint64 lo = ex.front().startPs;
  qint64 hi = ex.front().endPs;
  for (const TimelineExecution& e : ex) {
    lo = std::min(lo, e.startPs);
    hi = std::max(hi, e.endPs);
  }
  const double a = double(lo) / 1e12;
  const double b = double(hi) / 1e12;
  const double margin = std::max((b - a) * 0.05, 1e-6);
  m_chart->xAxis()->setRange(std::max(a - margin, m_chart->fullMin()),
                             std::min(b + margin, m_chart->fullMax()));
}

namespace {

// One sentence on how the plan was placed on the clock (or why it is not drawn).
QString planNote(const AnalysisResult& r) {
  if (!r.planTimeline || r.planTimeline->executions.empty()) {
    if (r.planTimeline && !r.planTimeline->notes.empty())
      return QObject::tr("Plan not drawn: %1.").arg(safeText(r.planTimeline->notes.front()));
    return {};
  }
  int kernels = 0, stretched = 0;
  for (const auto& x : r.planTimeline->executions)
    (x.mapping == analysis::TimeMapping::Kernels ? kernels : stretched)++;
  QString text = QObject::tr("The planned heap (purple) is placed on each execution");
  if (stretched == 0)
    return text + QObject::tr(
                      " by the start of each instruction's first kernel [measured]; instructions without a "
                      "kernel are interpolated.");
  if (kernels == 0)
    return text + QObject::tr(
                      ": STRETCHED over each host span, because no device event names an instruction "
                      "of this module.");
  return text + QObject::tr(
                    " by kernel times in %1 executions and STRETCHED over the host span in %2 without "
                    "kernel times.")
                    .arg(kernels)
                    .arg(stretched);
}

}  // namespace

void TimelinePage::setResult(const std::shared_ptr<const AnalysisResult>& result) {
  m_fit->setEnabled(false);
  m_whole->setEnabled(false);
  if (!result || result->timeline.empty()) {
    m_overlay->clear();
    m_chart->clear();
    m_summary->setText(tr("Timeline"));
    m_note->clear();
    m_empty->setText(result ? result->timeline.emptyReason
                            : tr("Open a capture to see its bytes in use over time."));
    m_stack->setCurrentIndex(0);
    return;
  }
  const TimelineSeries& s = result->timeline;
  m_overlay->clear();
  m_chart->setSeries(s);
  m_view->setXAxis(m_chart->xAxis(), m_chart->fullMin(), m_chart->fullMax());
  m_overlay->setData({result->planTimeline, result->report, result->request.capture});
  connect(m_chart->xAxis(), &QValueAxis::rangeChanged, m_overlay, &PlanRuntimeOverlay::refresh);
  QStringList parts;
  const auto plural = [](std::size_t n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
  };
  parts << tr("Bytes in use on %1").arg(plural(s.allocators.size(), tr("allocator"), tr("allocators")));
  if (!s.module.isEmpty())
    parts << tr("%1 of %2").arg(plural(s.executions.size(), tr("execution"), tr("executions")), s.module);
  parts << (s.retries.empty()
                ? tr("no AllocatorRetry waits")
                : plural(s.retries.size(), tr("AllocatorRetry wait"), tr("AllocatorRetry waits")));
  m_summary->setText(parts.join(QStringLiteral(" \u00b7 ")));
  QString note =
      tr("Bytes in use (and bytes reserved, dotted, where drawn) are read from each allocator event; "
         "executions and waits are measured from host spans. ");
  if (!m_chart->capacityNote().isEmpty()) note += m_chart->capacityNote() + QLatin1Char(' ');
  if (!m_chart->reservedNote().isEmpty()) note += m_chart->reservedNote() + QLatin1Char(' ');
  note += planNote(*result) + QLatin1Char(' ');
  note +=
      tr("Wheel zooms, drag pans, shift+drag selects a time range, click the plan to select its "
         "instruction, double-click shows the whole capture.");
  m_note->setText(note);
  m_stack->setCurrentIndex(1);
  m_fit->setEnabled(!s.executions.empty());
  m_whole->setEnabled(true);
}

}  // namespace oomscope::ui
