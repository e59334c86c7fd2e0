#include "ui/charts/timeline_chart.h"

#include <QAreaSeries>
#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "core/analysis/timeline/plan_timeline.h"
#include "ui/charts/execution_bands_item.h"
#include "ui/charts/plan_charts.h"
#include "ui/models/report_format.h"

namespace oomscope::ui {

namespace {

constexpr double kPsPerSecond = 1e12;
const QColor kBandFill(0x60, 0xa5, 0xfa, 60);
const QColor kBandEdge(0x60, 0xa5, 0xfa, 140);

double seconds(qint64 ps) { return double(ps) / kPsPerSecond; }

QColor allocatorColor(std::size_t i) {
  static const QColor palette[] = {
      QColor(0x1f, 0x5f, 0x99), QColor(0xd9, 0x5f, 0x02), QColor(0x1b, 0x9e, 0x77), QColor(0x75, 0x70, 0xb3),
      QColor(0xa6, 0x76, 0x1d), QColor(0xe7, 0x29, 0x8a), QColor(0x66, 0xa6, 0x1e), QColor(0x66, 0x66, 0x66)};
  return palette[i % (sizeof palette / sizeof palette[0])];
}

// "jit_f(12190760917235803885)" -> "jit_f": legends have no room for 20-digit program ids.
QString shortModule(const QString& label) {
  const qsizetype paren = label.indexOf(QLatin1Char('('));
  return paren > 0 && label.size() - paren > 8 ? label.left(paren) : label;
}

// The step line of (times, bytes) for [t0, t1]: the points inside and one on each side (the steps that cross
// the edges). Bytes change at events and hold in between. Times are clamped to [t0, t1]: a point far outside
// the view would make a line millions of pixels long, which the painter still walks.
QList<QPointF> stepPoints(const std::vector<qint64>& times, const std::vector<qint64>& bytes, qint64 t0,
                          qint64 t1, const ByteUnit& unit) {
  auto lo = std::lower_bound(times.begin(), times.end(), t0);
  auto hi = std::upper_bound(lo, times.end(), t1);
  if (lo != times.begin()) --lo;
  if (hi != times.end()) ++hi;
  QList<QPointF> pts;
  pts.reserve(qsizetype(hi - lo) * 2);
  for (auto k = std::size_t(lo - times.begin()); k < std::size_t(hi - times.begin()); ++k) {
    const double t = seconds(std::clamp(times[k], t0, t1));
    if (!pts.isEmpty()) pts << QPointF(t, pts.back().y());
    pts << QPointF(t, unit.toAxis(bytes[k]));
  }
  return pts;
}

}  // namespace

QString secondsText(qint64 ps) { return QStringLiteral("%1 s").arg(seconds(ps), 0, 'f', 6); }

QString durationText(qint64 ps) {
  const double s = seconds(ps);
  if (s >= 1) return QStringLiteral("%1 s").arg(s, 0, 'g', 3);
  if (s >= 1e-3) return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'g', 3);
  return QStringLiteral("%1 \u00b5s").arg(s * 1e6, 0, 'g', 3);
}

TimelineChart::TimelineChart(QObject* parent) : QObject(parent), m_chart(new QChart) {
  m_chart->setBackgroundRoundness(0);
  m_chart->setMargins(QMargins(4, 4, 8, 4));
  // On the right: eight allocators plus the plan's entries do not fit in one row at the bottom.
  m_chart->legend()->setAlignment(Qt::AlignRight);
  m_chart->setAnimationOptions(QChart::NoAnimation);
  // The bands are placed from the plot area at paint time; their bounds follow it.
  connect(m_chart, &QChart::plotAreaChanged, this, [this] {
    if (m_bands) m_bands->plotAreaChanged();
  });
}

void TimelineChart::clear() {
  m_chart->removeAllSeries();
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  m_x = nullptr;
  m_y = nullptr;
  m_lines.clear();
  m_reservedLines.clear();
  delete m_bands;
  m_bands = nullptr;
  m_series = {};
  m_capacityShown = false;
  m_capacityNote.clear();
  m_reservedNote.clear();
}

void TimelineChart::setSeries(TimelineSeries s) {
  clear();
  m_series = std::move(s);
  const TimelineSeries& d = m_series;
  if (d.empty()) return;

  qint64 maxBytes = 1;
  bool anyReserved = false;
  for (const TimelineAllocator& a : d.allocators) {
    for (qint64 b : a.bytes) maxBytes = std::max(maxBytes, b);
    if (drawsReserved(a)) {
      maxBytes = std::max(maxBytes, a.peakReservedBytes);
      anyReserved = true;
    }
  }
  m_reservedNote = ui::reservedNote(d);
  maxBytes = std::max(maxBytes, d.plannedPeakBytes);
  qint64 top = maxBytes;
  if (d.capacity) {
    // How close the run came to the pool matters more here than on the plan: allow a flatter curve.
    m_capacityShown = capacityInRange(*d.capacity, maxBytes, 4.0);
    if (m_capacityShown)
      top = std::max(top, *d.capacity);
    else
      m_capacityNote =
          QStringLiteral("The pool (%1, %2) is off this scale: the highest bytes in use are %3 of it.")
              .arg(bytesText(*d.capacity), d.capacitySource,
                   percentText(100.0 * double(maxBytes) / double(*d.capacity)));
  }
  m_unit = byteUnitFor(top);
  auto* y = new QValueAxis;
  setupByteAxis(
      y, m_unit, top,
      anyReserved ? QStringLiteral("bytes in use, reserved (dotted)") : QStringLiteral("bytes in use"),
      QStringLiteral("read"), 1.12);
  const double yTop = y->max();

  const double span = std::max(seconds(d.lastPs - d.firstPs), 1e-6);
  m_fullMin = seconds(d.firstPs) - span * 0.01;
  m_fullMax = seconds(d.lastPs) + span * 0.01;

  // The bands themselves are painted by m_bands (made with the x axis below); this series without points
  // gives them their legend entry.
  if (!d.executions.empty()) {
    auto* legendOnly = new QLineSeries;
    auto* bands = new QAreaSeries(legendOnly);
    legendOnly->setParent(bands);
    bands->setName(QStringLiteral("%1 executions (%2)")
                       .arg(shortModule(d.module).toHtmlEscaped())  // the legend renders rich text
                       .arg(d.executions.size()));
    bands->setColor(kBandFill);
    bands->setBorderColor(kBandEdge);
    m_chart->addSeries(bands);
  }

  for (std::size_t i = 0; i < d.allocators.size(); ++i) {
    const TimelineAllocator& a = d.allocators[i];
    auto* line = new QLineSeries;  // filled for the visible range by refreshWindow()
    line->setName(QStringLiteral("%1 (peak %2)").arg(a.name.toHtmlEscaped(), bytesText(a.peakBytes)));
    QPen pen(allocatorColor(i));
    pen.setWidthF(1.6);
    line->setPen(pen);
    m_chart->addSeries(line);
    m_lines.push_back(line);
    connect(line, &QLineSeries::hovered, this, [this, i](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), describeAllocator(i, p.x()));
    });
    // Bytes reserved beside bytes in use, in the allocator's colour, dotted; its legend entry follows.
    if (!drawsReserved(a)) {
      m_reservedLines.push_back(nullptr);
      continue;
    }
    auto* reserved = new QLineSeries;  // filled for the visible range by refreshWindow()
    reserved->setName(
        QStringLiteral("%1 reserved (peak %2)").arg(a.name.toHtmlEscaped(), bytesText(a.peakReservedBytes)));
    pen.setStyle(Qt::DotLine);
    reserved->setPen(pen);
    m_chart->addSeries(reserved);
    m_reservedLines.push_back(reserved);
    connect(reserved, &QLineSeries::hovered, this, [this, i](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), describeReserved(i, p.x()));
    });
  }
  if (m_capacityShown) {
    auto* cap = new QLineSeries;
    cap->append(m_fullMin, m_unit.toAxis(*d.capacity));
    cap->append(m_fullMax, m_unit.toAxis(*d.capacity));
    cap->setName(QStringLiteral("pool %1 (%2)")
                     .arg(bytesText(*d.capacity),
                          d.capacityFromUser ? QStringLiteral("entered") : QStringLiteral("read")));
    QPen pen(QColor(0xc0, 0x1c, 0x28));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.5);
    cap->setPen(pen);
    m_chart->addSeries(cap);
  }

  QList<QPointF> neverLaunched;
  for (const TimelineExecution& e : d.executions)
    if (e.launched == false) neverLaunched << QPointF(seconds(e.startPs), yTop * 0.9);
  if (!neverLaunched.isEmpty()) {
    auto* marks = new QScatterSeries;
    marks->setName(QStringLiteral("never launched a kernel (%1)").arg(neverLaunched.size()));
    marks->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    marks->setMarkerSize(9);
    marks->setColor(QColor(0x7f, 0x1d, 0x1d));
    marks->setBorderColor(Qt::white);
    marks->replace(neverLaunched);
    m_chart->addSeries(marks);
    connect(marks, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), describeExecution(p.x()));
    });
  }
  if (!d.retries.empty()) {
    auto* marks = new QScatterSeries;
    marks->setName(QStringLiteral("AllocatorRetry waits (%1)").arg(d.retries.size()));
    marks->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    marks->setMarkerSize(11);
    marks->setColor(QColor(0xdc, 0x26, 0x26));
    marks->setBorderColor(Qt::white);
    QList<QPointF> pts;
    for (const TimelineRetry& r : d.retries) pts << QPointF(seconds(r.timePs), yTop * 0.96);
    marks->replace(pts);
    m_chart->addSeries(marks);
    connect(marks, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), describeRetry(p.x()));
    });
  }

  m_x = new QValueAxis;
  setupSecondsAxis(m_x, m_fullMin, m_fullMax,
                   QStringLiteral("time (s, capture clock); executions and retry waits [measured]"));
  m_chart->addAxis(m_x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  m_y = y;
  for (QAbstractSeries* series : m_chart->series()) {
    series->attachAxis(m_x);
    series->attachAxis(y);
  }
  if (!d.executions.empty()) {
    m_bands = new ExecutionBandsItem(m_chart, m_x);
    m_bands->setColors(kBandFill, kBandEdge);
    m_bands->setHoverText([this](double x) { return describeExecution(x); });
  }
  refreshWindow();
  connect(m_x, &QValueAxis::rangeChanged, this, &TimelineChart::refreshWindow);
}

void TimelineChart::refreshWindow() {
  if (!m_x) return;
  const TimelineSeries& d = m_series;
  // A little beyond the visible range, so that no band or step edge is drawn at the plot's border.
  const double margin = (m_x->max() - m_x->min()) * 0.02;
  const qint64 t0 = qint64(std::floor((m_x->min() - margin) * kPsPerSecond));
  const qint64 t1 = std::max(qint64(std::ceil((m_x->max() + margin) * kPsPerSecond)), t0 + 1);
  const std::size_t pixels = std::size_t(std::max(100.0, m_chart->plotArea().width()));
  if (m_bands) {
    std::vector<analysis::TimeSpan> spans;
    spans.reserve(d.executions.size());
    for (const TimelineExecution& e : d.executions) spans.push_back({e.startPs, e.endPs});
    std::vector<std::pair<double, double>> bands;
    for (const analysis::TimeSpan& s : analysis::visible_spans(spans, t0, t1, pixels))
      bands.emplace_back(seconds(s.start_ps), seconds(s.end_ps));
    m_bands->setSpans(std::move(bands));
  }
  for (std::size_t i = 0; i < d.allocators.size() && i < m_lines.size(); ++i)
    m_lines[i]->replace(stepPoints(d.allocators[i].timePs, d.allocators[i].bytes, t0, t1, m_unit));
  for (std::size_t i = 0; i < d.allocators.size() && i < m_reservedLines.size(); ++i)
    if (m_reservedLines[i])
      m_reservedLines[i]->replace(
          stepPoints(d.allocators[i].reservedTimePs, d.allocators[i].reservedBytes, t0, t1, m_unit));
}

QString TimelineChart::describeAllocator(std::size_t allocator, double x) const {
  if (allocator >= m_series.allocators.size()) return {};
  const TimelineAllocator& a = m_series.allocators[allocator];
  if (a.timePs.empty()) return {};
  // The step holding at x: the last event at or before it.
  const qint64 ps = qint64(std::llround(x * kPsPerSecond));
  auto it = std::upper_bound(a.timePs.begin(), a.timePs.end(), ps);
  const std::size_t i = it == a.timePs.begin() ? 0 : std::size_t(it - a.timePs.begin()) - 1;
  QString text = QStringLiteral("%1 at %2\nin use %3 [read]")
                     .arg(a.name, secondsText(a.timePs[i]), bytesWithExact(a.bytes[i]));
  if (a.capacity > 0)
    text += QStringLiteral("\n%1 of the pool's %2")
                .arg(percentText(100.0 * double(a.bytes[i]) / double(a.capacity)), bytesText(a.capacity));
  return text;
}

QString TimelineChart::describeReserved(std::size_t allocator, double x) const {
  if (allocator >= m_series.allocators.size()) return {};
  const TimelineAllocator& a = m_series.allocators[allocator];
  if (a.reservedTimePs.empty()) return {};
  const qint64 ps = qint64(std::llround(x * kPsPerSecond));
  auto it = std::upper_bound(a.reservedTimePs.begin(), a.reservedTimePs.end(), ps);
  const std::size_t i = it == a.reservedTimePs.begin() ? 0 : std::size_t(it - a.reservedTimePs.begin()) - 1;
  return QStringLiteral("%1 at %2\nreserved %3 [read]\n(the allocator's bytes_reserved stat; peak %4 at %5)")
      .arg(a.name, secondsText(a.reservedTimePs[i]), bytesWithExact(a.reservedBytes[i]),
           bytesText(a.peakReservedBytes), secondsText(a.peakReservedTimePs));
}

QString TimelineChart::describeExecution(double x) const {
  const auto& ex = m_series.executions;
  if (ex.empty()) return {};
  const qint64 ps = qint64(std::llround(x * kPsPerSecond));
  std::size_t best = 0;
  qint64 bestDistance = -1;
  for (std::size_t i = 0; i < ex.size(); ++i) {
    const qint64 dist = ps < ex[i].startPs ? ex[i].startPs - ps : (ps > ex[i].endPs ? ps - ex[i].endPs : 0);
    if (bestDistance < 0 || dist < bestDistance) {
      best = i;
      bestDistance = dist;
    }
  }
  const TimelineExecution& e = ex[best];
  const QString launched =
      !e.launched ? QStringLiteral("unknown") : (*e.launched ? QStringLiteral("yes") : QStringLiteral("NO"));
  QString text =
      QStringLiteral(
          "%1 execution #%2\n%3 .. %4 (%5) [measured]\nin use at start %6 [read]\nkernel launched: %7")
          .arg(m_series.module)
          .arg(e.number)
          .arg(secondsText(e.startPs), secondsText(e.endPs), durationText(e.endPs - e.startPs),
               bytesWithExact(e.inUseAtStart), launched);
  if (e.retryWaitPs > 0) text += QStringLiteral("\nAllocatorRetry wait %1").arg(durationText(e.retryWaitPs));
  return text;
}

QString TimelineChart::describeRetry(double x) const {
  const auto& rs = m_series.retries;
  if (rs.empty()) return {};
  const qint64 ps = qint64(std::llround(x * kPsPerSecond));
  const auto nearest =
      std::min_element(rs.begin(), rs.end(), [ps](const TimelineRetry& a, const TimelineRetry& b) {
        return std::llabs(a.timePs - ps) < std::llabs(b.timePs - ps);
      });
  return QStringLiteral(
             "AllocatorRetry wait at %1, %2 [measured]\nthe allocator waited for memory to be freed")
      .arg(secondsText(nearest->timePs), durationText(nearest->durationPs));
}

}  // namespace oomscope::ui
