#include "ui/charts/plan_charts.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "ui/models/report_format.h"

namespace oomscope::ui {

namespace {

void resetChart(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

QChart* newChart() {
  auto* chart = new QChart;
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 8, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

QLineSeries* horizontalLine(double x0, double x1, double y) {
  auto* line = new QLineSeries;
  line->append(x0, y);
  line->append(x1, y);
  return line;
}

}  // namespace

bool capacityInRange(qint64 capacity, qint64 maxBytes, double factor) {
  return capacity > 0 && double(capacity) <= factor * double(std::max<qint64>(maxBytes, 1));
}

PlanCurveChart::PlanCurveChart(QObject* parent) : QObject(parent), m_chart(newChart()) {}

void PlanCurveChart::clear() {
  resetChart(m_chart);
  m_x = nullptr;
  m_y = nullptr;
  m_bandArea = nullptr;
  m_band = nullptr;
  m_highlightFrom = m_highlightTo = -1;
  m_highlightLabel.clear();
  m_series = {};
  m_capacityShown = false;
  m_capacityNote.clear();
}

void PlanCurveChart::setSeries(PlanCurveSeries s) {
  clear();
  m_series = std::move(s);
  const PlanCurveSeries& d = m_series;
  if (d.empty()) return;

  qint64 top = d.peakBytes;
  if (d.capacity) {
    m_capacityShown = capacityInRange(*d.capacity, d.peakBytes);
    if (m_capacityShown)
      top = std::max(top, *d.capacity);
    else
      m_capacityNote = QStringLiteral("The pool (%1, %2) is off this scale: the peak is %3 of it.")
                           .arg(bytesText(*d.capacity), d.capacitySource,
                                percentText(100.0 * double(d.peakBytes) / double(*d.capacity)));
  } else {
    m_capacityNote = QStringLiteral("Pool size unknown: enter one on the Diagnosis page to draw it.");
  }
  m_unit = byteUnitFor(top);
  const double x0 = 0;
  const double x1 = double(std::max<qint64>(d.eventCount - 1, 1));

  // Base: what is allocated for the whole step (parameters, outputs, constants).
  auto* baseTop = horizontalLine(x0, x1, m_unit.toAxis(d.indefiniteBytes));
  auto* base = new QAreaSeries(baseTop);
  base->setName(QStringLiteral("parameters/outputs/constants %1").arg(bytesText(d.indefiniteBytes)));
  base->setColor(QColor(0x3a, 0x9e, 0x6e, 110));
  base->setBorderColor(QColor(0x3a, 0x9e, 0x6e));

  QList<QPointF> points;
  QList<QPointF> lower;
  points.reserve(qsizetype(d.x.size()));
  // The heap holds its size from one event to the next: steps, not slopes.
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    if (i > 0) points.append(QPointF(double(d.x[i]), m_unit.toAxis(d.bytes[i - 1])));
    points.append(QPointF(double(d.x[i]), m_unit.toAxis(d.bytes[i])));
  }
  auto* upper = new QLineSeries;
  upper->replace(points);
  auto* heapBase = horizontalLine(x0, x1, m_unit.toAxis(d.indefiniteBytes));
  auto* heap = new QAreaSeries(upper, heapBase);
  heap->setName(QStringLiteral("temp heap"));
  heap->setColor(QColor(0x2b, 0x7b, 0xb9, 90));
  QPen pen(QColor(0x1f, 0x5f, 0x99));
  pen.setWidthF(1.5);
  heap->setPen(pen);

  auto* peak = new QScatterSeries;
  peak->setName(QStringLiteral("peak %1").arg(bytesText(d.peakBytes)));
  peak->append(double(d.peakIndex), m_unit.toAxis(d.peakBytes));
  peak->setMarkerSize(11);
  peak->setColor(QColor(0xc0, 0x1c, 0x28));
  peak->setBorderColor(Qt::white);

  m_chart->addSeries(base);
  m_chart->addSeries(heap);
  QLineSeries* cap = nullptr;
  if (m_capacityShown) {
    cap = horizontalLine(x0, x1, m_unit.toAxis(*d.capacity));
    cap->setName(QStringLiteral("pool %1 (%2)")
                     .arg(bytesText(*d.capacity),
                          d.capacityFromUser ? QStringLiteral("entered") : QStringLiteral("read")));
    QPen capPen(QColor(0xc0, 0x1c, 0x28));
    capPen.setStyle(Qt::DashLine);
    capPen.setWidthF(1.5);
    cap->setPen(capPen);
    m_chart->addSeries(cap);
  }
  m_chart->addSeries(peak);

  m_x = new QValueAxis;
  m_x->setTitleText(
      QStringLiteral("program order (heap-simulator trace event, %1 events)").arg(d.eventCount));
  m_x->setRange(x0, x1);
  keepNiceTicks(m_x, 10, true);
  auto* y = new QValueAxis;
  setupByteAxis(y, m_unit, top, QStringLiteral("heap size"), QStringLiteral("derived"));
  m_chart->addAxis(m_x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  m_y = y;
  for (QAbstractSeries* series : m_chart->series()) {
    series->attachAxis(m_x);
    series->attachAxis(y);
  }
  connect(upper, &QLineSeries::hovered, this, [this](const QPointF& p, bool state) {
    if (state) QToolTip::showText(QCursor::pos(), describe(p.x()));
  });
  connect(peak, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
    if (state) QToolTip::showText(QCursor::pos(), describe(p.x()));
  });
}

QString PlanCurveChart::describe(double x) const {
  const PlanCurveSeries& d = m_series;
  if (d.x.empty()) return {};
  auto it = std::lower_bound(d.x.begin(), d.x.end(), qint64(x + 0.5));
  std::size_t i = std::size_t(std::min<std::ptrdiff_t>(it - d.x.begin(), std::ptrdiff_t(d.x.size()) - 1));
  if (i > 0 && std::abs(double(d.x[i - 1]) - x) < std::abs(double(d.x[i]) - x)) --i;
  QString text =
      QStringLiteral("event %1: %2\nheap + parameters/outputs: %3 [derived]\n  = temp heap %4 + %5")
          .arg(d.x[i])
          .arg(d.instruction[i].isEmpty() ? QStringLiteral("(unnamed)") : d.instruction[i],
               bytesWithExact(d.bytes[i]), bytesText(d.bytes[i] - d.indefiniteBytes),
               bytesText(d.indefiniteBytes));
  if (d.x[i] == d.peakIndex) text += QStringLiteral("\nthe plan's peak");
  return text;
}

void PlanCurveChart::setHighlight(qint64 from, qint64 to, const QString& label) {
  if (!m_x || !m_y) return;
  if (from < 0) {
    if (m_bandArea) {
      m_chart->removeSeries(m_bandArea);
      delete m_bandArea;  // and its upper line, its child
    }
    m_bandArea = nullptr;
    m_band = nullptr;
    m_highlightFrom = m_highlightTo = -1;
    m_highlightLabel.clear();
    return;
  }
  const double last = double(std::max<qint64>(m_series.eventCount - 1, 1));
  const double a = std::clamp(double(from), 0.0, last);
  // A single position still gets a visible sliver.
  const double b = std::max(to < 0 ? last : std::clamp(double(to), 0.0, last), a + last * 2e-3);
  const double top = m_y->max();
  if (!m_band) {
    m_band = new QLineSeries;
    m_bandArea = new QAreaSeries(m_band);
    m_band->setParent(m_bandArea);
    m_bandArea->setColor(QColor(0xf5, 0x9e, 0x0b, 70));
    m_bandArea->setBorderColor(QColor(0xf5, 0x9e, 0x0b, 160));
    m_chart->addSeries(m_bandArea);
    m_bandArea->attachAxis(m_x);
    m_bandArea->attachAxis(m_y);
  }
  m_band->replace(QList<QPointF>{{a, 0}, {a, top}, {b, top}, {b, 0}});
  m_bandArea->setName(label.toHtmlEscaped());  // the legend renders rich text
  m_highlightFrom = from;
  m_highlightTo = to;
  m_highlightLabel = label;
}

RoleBarChart::RoleBarChart(QObject* parent) : QObject(parent), m_chart(newChart()) {}

void RoleBarChart::clear() { resetChart(m_chart); }

int RoleBarChart::barSetCount() const {
  int n = 0;
  for (QAbstractSeries* s : m_chart->series())
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) n += int(bars->count());
  return n;
}

void RoleBarChart::setSeries(const PlanCurveSeries& d) {
  clear();
  if (d.empty() || d.roles.empty()) return;
  const ByteUnit unit = byteUnitFor(d.peakBytes);
  auto* bars = new QHorizontalStackedBarSeries;
  bars->setBarWidth(0.55);
  for (const analysis::RoleTotal& t : d.roles) {
    // The legend renders rich text, so "< 0.1 %" would swallow itself as a tag.
    const QString pct =
        t.percent_of_peak < 0.05 ? QStringLiteral("under 0.1 %") : percentText(t.percent_of_peak);
    auto* set = new QBarSet(QStringLiteral("%1 %2 \u00b7 %3").arg(roleText(t.role), bytesText(t.bytes), pct));
    set->append(unit.toAxis(t.bytes));
    set->setColor(roleColor(t.role));
    set->setBorderColor(roleColor(t.role).darker(130));
    const QString tip = QStringLiteral("%1: %2\n%3 in %4 buffers, %5 of the peak [derived]")
                            .arg(roleText(t.role), roleMeaning(t.role), bytesWithExact(t.bytes))
                            .arg(t.buffers)
                            .arg(percentText(t.percent_of_peak));
    connect(set, &QBarSet::hovered, this, [tip](bool state, int) {
      if (state) QToolTip::showText(QCursor::pos(), tip);
    });
    bars->append(set);
  }
  m_chart->addSeries(bars);
  auto* category = new QBarCategoryAxis;
  category->append(QStringLiteral("peak"));
  category->setVisible(false);
  auto* x = new QValueAxis;
  setupByteAxis(x, unit, d.peakBytes, QStringLiteral("role split at the peak"), QStringLiteral("derived"),
                1.0);
  m_chart->addAxis(category, Qt::AlignLeft);
  m_chart->addAxis(x, Qt::AlignBottom);
  bars->attachAxis(category);
  bars->attachAxis(x);
}

}  // namespace oomscope::ui
