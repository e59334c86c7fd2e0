#include "ui/charts/plan_runtime_overlay.h"

#include <QAreaSeries>
#include <QChart>
#include <QCursor>
#include <QFont>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/charts/step_area_item.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

constexpr double kPsPerSecond = 1e12;
constexpr int kMaxLabels = 12;
constexpr int kMarkerColumnPixels = 6;  // markers are 9 and 10 px wide: closer ones would overlap
constexpr double kColumnPixels = 4;     // width of a bar when executions are too dense to draw one by one

double seconds(qint64 ps) { return double(ps) / kPsPerSecond; }
std::int64_t picoseconds(double s) { return std::int64_t(std::llround(s * kPsPerSecond)); }

const QColor kPlanColor(0x8e, 0x44, 0xad);
constexpr double kPlanZ = 4.5;  // over the allocator lines (4), under the peak markers
const QColor kRuntimePeakColor(0x0b, 0x3d, 0x6b);

QString signedBytes(qint64 bytes) {
  return (bytes < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + bytesText(bytes < 0 ? -bytes : bytes);
}

}  // namespace

bool PlanRuntimeData::usable() const {
  return timeline && report && capture && report->plan && report->plan->curve.size() > 0 &&
         !timeline->executions.empty();
}

PlanRuntimeOverlay::PlanRuntimeOverlay(TimelineChart* chart, QObject* parent)
    : QObject(parent), m_chart(chart) {}

// The label items are children of the chart, which deletes them with itself.
PlanRuntimeOverlay::~PlanRuntimeOverlay() = default;

void PlanRuntimeOverlay::clear() {
  // The series belong to the chart, which TimelineChart::setSeries/clear empties; only forget them here.
  m_planned = nullptr;
  m_plannedArea = nullptr;
  delete m_plannedItem;  // a child of the chart, which does not know it
  m_plannedItem = nullptr;
  m_plannedPeaks = nullptr;
  m_runtimePeaks = nullptr;
  m_highlight = nullptr;
  m_highlightUpper = nullptr;
  m_runtime = nullptr;
  qDeleteAll(m_labels);
  m_labels.clear();
  m_data = {};
  m_stretchedVisible = false;
  m_markersThinned = false;
  m_highlightFrom = m_highlightTo = -1;
  m_highlightLabel.clear();
}

void PlanRuntimeOverlay::setData(PlanRuntimeData data) {
  clear();
  m_data = std::move(data);
  QChart* chart = m_chart->chart();
  if (!m_data.usable() || !m_chart->xAxis() || !m_chart->yAxis()) return;
  const analysis::PlanTimeline& tl = *m_data.timeline;
  // The module allocator's line of the chart is redrawn per window from the capture's own events.
  if (tl.allocator && *tl.allocator < m_data.capture->allocators().size()) {
    const QString name = safeText(m_data.capture->allocators()[*tl.allocator].name);
    for (std::size_t i = 0; i < m_chart->series().allocators.size(); ++i)
      if (m_chart->series().allocators[i].name == name) m_runtime = m_chart->allocatorLine(i);
  }

  m_highlightUpper = new QLineSeries;
  m_highlight = new QAreaSeries(m_highlightUpper);
  m_highlightUpper->setParent(m_highlight);  // goes with the area when the chart removes its series
  m_highlight->setColor(QColor(0xf5, 0x9e, 0x0b, 70));
  m_highlight->setBorderColor(QColor(0xf5, 0x9e, 0x0b, 160));
  m_highlight->setName(tr("selected buffer's lifetime"));
  chart->addSeries(m_highlight);

  // A filled area: between executions it has no height, so the plan shows only where the module ran.
  m_planned = new QLineSeries;
  m_plannedArea = new QAreaSeries(m_planned);
  m_planned->setParent(m_plannedArea);
  m_plannedArea->setName(
      std::any_of(tl.executions.begin(), tl.executions.end(),
                  [](const auto& x) { return x.mapping == analysis::TimeMapping::Kernels; })
          ? tr("plan, at kernel times")
          : tr("plan, STRETCHED (no kernel times)"));
  QColor fill = kPlanColor;
  fill.setAlpha(95);
  // The series holds the points (hover, clicks, the legend); m_plannedItem paints them, in a fraction of the
  // time the series' own fill takes. The outline shows instructions too short to fill a pixel; between
  // executions it lies on the time axis.
  m_plannedArea->setBrush(Qt::NoBrush);
  m_plannedArea->setPen(Qt::NoPen);
  chart->addSeries(m_plannedArea);
  m_plannedItem = new StepAreaItem(chart, m_chart->xAxis(), m_chart->yAxis(), kPlanZ);
  m_plannedItem->setColors(fill, kPlanColor);
  for (QLegendMarker* marker : chart->legend()->markers(m_plannedArea)) {
    marker->setBrush(fill);
    marker->setPen(QPen(kPlanColor));
  }
  connect(m_plannedArea, &QAreaSeries::hovered, this, [this](const QPointF& p, bool state) {
    if (state) QToolTip::showText(QCursor::pos(), describe(p.x()));
  });
  connect(m_plannedArea, &QAreaSeries::clicked, this, [this](const QPointF& p) {
    if (auto hit = hitAt(p.x())) emit instructionClicked(hit->instruction, hit->position);
  });

  m_plannedPeaks = new QScatterSeries;
  m_plannedPeaks->setName(tr("planned peak"));
  m_plannedPeaks->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
  m_plannedPeaks->setMarkerSize(10);
  m_plannedPeaks->setColor(kPlanColor);
  m_plannedPeaks->setBorderColor(Qt::white);
  chart->addSeries(m_plannedPeaks);
  m_runtimePeaks = new QScatterSeries;
  m_runtimePeaks->setName(tr("runtime peak per execution"));
  m_runtimePeaks->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  m_runtimePeaks->setMarkerSize(9);
  m_runtimePeaks->setColor(kRuntimePeakColor);
  m_runtimePeaks->setBorderColor(Qt::white);
  chart->addSeries(m_runtimePeaks);
  for (QScatterSeries* s : {m_plannedPeaks, m_runtimePeaks})
    connect(s, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), describe(p.x()));
    });
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(m_highlight), static_cast<QAbstractSeries*>(m_plannedArea),
        static_cast<QAbstractSeries*>(m_plannedPeaks), static_cast<QAbstractSeries*>(m_runtimePeaks)}) {
    s->attachAxis(m_chart->xAxis());
    s->attachAxis(m_chart->yAxis());
  }
  refresh();
}

void PlanRuntimeOverlay::refresh() {
  if (!m_planned || !m_chart->xAxis()) return;
  const analysis::PlanTimeline& tl = *m_data.timeline;
  const analysis::PlanAnalysis& plan = *m_data.report->plan;
  const analysis::MemoryCurve& curve = plan.curve;
  const ByteUnit& unit = m_chart->unit();
  const std::int64_t t0 = picoseconds(m_chart->xAxis()->min());
  const std::int64_t t1 = std::max(picoseconds(m_chart->xAxis()->max()), t0 + 1);
  const int pixels = std::max(100, int(m_chart->chart()->plotArea().width()));
  const double psPerPixel = double(t1 - t0) / pixels;

  std::vector<std::size_t> visible;
  for (std::size_t i = 0; i < tl.executions.size(); ++i)
    if (tl.executions[i].end_ps >= t0 && tl.executions[i].start_ps <= t1) visible.push_back(i);
  m_stretchedVisible = std::any_of(visible.begin(), visible.end(), [&](std::size_t i) {
    return tl.executions[i].mapping == analysis::TimeMapping::Stretched;
  });

  QList<QPointF> planned;
  // Each execution its own curve only while they are some pixels wide: hundreds of slivers, each with
  // full-height edges, made the area take a second to fill.
  if (visible.size() * 8 <= std::size_t(pixels)) {
    for (std::size_t i : visible) {
      const analysis::ExecutionTimeline& x = tl.executions[i];
      const std::int64_t a = std::max(x.start_ps, t0), b = std::min(x.end_ps, t1);
      const std::size_t buckets = std::size_t(std::max(1.0, double(b - a) / psPerPixel));
      const auto pts = analysis::planned_points(x, curve, plan.peak_event_index, a, b, buckets);
      if (pts.empty()) continue;
      planned << QPointF(seconds(pts.front().time_ps), 0);
      double last = 0;
      for (const analysis::TimeBytes& p : pts) {
        const double s = seconds(p.time_ps);
        planned << QPointF(s, last);
        last = unit.toAxis(p.bytes);
        planned << QPointF(s, last);
      }
      planned << QPointF(seconds(b), last) << QPointF(seconds(b), 0);
    }
  } else {
    // More executions than an eighth of the pixels: per column of kColumnPixels, a bar as high as the
    // highest planned peak in it, drawn as one outline left to right. Area fills cost about the number of
    // full-height edges: zero-width spikes, or a bar per pixel alternating with gaps, took seconds.
    const double psPerColumn = psPerPixel * kColumnPixels;
    const auto columns = std::size_t(std::ceil(double(pixels) / kColumnPixels));
    std::vector<std::int64_t> best(columns + 1, -1);
    for (std::size_t i : visible) {
      const auto c = std::size_t(
          std::clamp(double(tl.executions[i].planned_peak_time_ps - t0) / psPerColumn, 0.0, double(columns)));
      best[c] = std::max(best[c], tl.executions[i].planned_peak_bytes);
    }
    double level = 0;
    const auto edge = [&](std::size_t c) { return seconds(t0 + std::int64_t(double(c) * psPerColumn)); };
    planned << QPointF(edge(0), 0);
    for (std::size_t c = 0; c < best.size(); ++c) {
      const double v = best[c] >= 0 ? unit.toAxis(best[c]) : 0.0;
      if (v == level) continue;
      planned << QPointF(edge(c), level) << QPointF(edge(c), v);
      level = v;
    }
    planned << QPointF(edge(best.size()), level) << QPointF(edge(best.size()), 0);
  }
  m_planned->replace(planned);
  m_plannedItem->setOutline(planned);

  // Every visible execution's peaks, or where they are closer than a marker column, the highest of each
  // column (the legend says so): a marker per execution made thousands of items a frame.
  const auto columns = std::size_t(std::max(1.0, std::floor(double(pixels) / kMarkerColumnPixels)));
  const analysis::PeakMarkers markers = analysis::peak_markers(tl.executions, t0, t1, columns);
  QList<QPointF> pp, rp;
  for (const analysis::PeakMarker& m : markers.planned)
    pp << QPointF(seconds(m.time_ps), unit.toAxis(m.bytes));
  for (const analysis::PeakMarker& m : markers.runtime)
    rp << QPointF(seconds(m.time_ps), unit.toAxis(m.bytes));
  m_plannedPeaks->replace(pp);
  m_runtimePeaks->replace(rp);
  m_markersThinned = markers.thinned;
  const QString plannedName =
      markers.thinned ? tr("planned peak (highest per %1 px)").arg(kMarkerColumnPixels) : tr("planned peak");
  const QString runtimeName = markers.thinned
                                  ? tr("runtime peak (highest per %1 px)").arg(kMarkerColumnPixels)
                                  : tr("runtime peak per execution");
  if (m_plannedPeaks->name() != plannedName) m_plannedPeaks->setName(plannedName);
  if (m_runtimePeaks->name() != runtimeName) m_runtimePeaks->setName(runtimeName);

  if (m_runtime) {
    const auto pts =
        analysis::runtime_points(tl, m_data.capture->memory_events(), t0, t1, std::size_t(pixels));
    QList<QPointF> steps;
    steps.reserve(qsizetype(pts.size() * 2 + 1));
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const double s = seconds(pts[k].time_ps);
      if (k > 0) steps << QPointF(s, unit.toAxis(pts[k - 1].bytes));
      steps << QPointF(s, unit.toAxis(pts[k].bytes));
    }
    if (!pts.empty()) steps << QPointF(seconds(t1), unit.toAxis(pts.back().bytes));
    m_runtime->replace(steps);
  }
  refreshHighlight(t0, t1);
  placeLabels(t0, t1);
}

int PlanRuntimeOverlay::plannedPointCount() const { return m_planned ? int(m_planned->count()) : 0; }
int PlanRuntimeOverlay::runtimePointCount() const { return m_runtime ? int(m_runtime->count()) : 0; }

QList<QString> PlanRuntimeOverlay::visibleLabels() const {
  QList<QString> out;
  for (const QGraphicsSimpleTextItem* item : m_labels)
    if (item->isVisible()) out << item->text();
  return out;
}

QString PlanRuntimeOverlay::differenceLabel(std::size_t i) const {
  if (!m_data.timeline || i >= m_data.timeline->executions.size()) return {};
  const analysis::ExecutionTimeline& x = m_data.timeline->executions[i];
  if (!x.allocator) return {};
  QStringList parts;
  for (int k = 0; k < 4; ++k)
    if (x.live_by_kind[k] > 0)
      parts << QStringLiteral("%1 %2").arg(QString::fromUtf8(analysis::to_string(analysis::LiveKind(k))),
                                           bytesText(x.live_by_kind[k]));
  QString text = tr("%1 vs plan").arg(signedBytes(x.difference_bytes));
  if (!parts.isEmpty()) text += QStringLiteral(": ") + parts.join(QStringLiteral(", "));
  return text;
}

void PlanRuntimeOverlay::placeLabels(qint64 t0, qint64 t1) {
  qDeleteAll(m_labels);
  m_labels.clear();
  QChart* chart = m_chart->chart();
  const QRectF plot = chart->plotArea();
  QList<QRectF> taken;
  const auto& ex = m_data.timeline->executions;
  for (std::size_t i = 0; i < ex.size() && m_labels.size() < kMaxLabels; ++i) {
    const analysis::ExecutionTimeline& x = ex[i];
    if (x.end_ps < t0 || x.start_ps > t1 || !x.allocator) continue;
    const std::int64_t top = std::max(x.runtime_peak_bytes, x.planned_peak_bytes);
    const QPointF anchor = chart->mapToPosition(
        QPointF(seconds(x.runtime_peak_time_ps), m_chart->unit().toAxis(top)), m_plannedArea);
    auto* item = new QGraphicsSimpleTextItem(differenceLabel(i), chart);
    QFont font = item->font();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    item->setFont(font);
    item->setBrush(kRuntimePeakColor);
    const QRectF box = item->boundingRect();
    QPointF at(anchor.x() - box.width() / 2, anchor.y() - box.height() - 6);
    at.setX(std::clamp(at.x(), plot.left() + 2, std::max(plot.left() + 2, plot.right() - box.width() - 2)));
    at.setY(std::max(at.y(), plot.top() + 2));
    const QRectF rect(at, box.size());
    const bool fits = plot.contains(rect) && std::none_of(taken.begin(), taken.end(), [&](const QRectF& r) {
                        return r.adjusted(-4, -2, 4, 2).intersects(rect);
                      });
    item->setPos(at);
    item->setZValue(20);
    item->setVisible(fits);
    if (fits) taken << rect;
    m_labels << item;
  }
}

void PlanRuntimeOverlay::setHighlight(qint64 from, qint64 to, const QString& label) {
  m_highlightFrom = from;
  m_highlightTo = to;
  m_highlightLabel = label;
  if (m_highlight) m_highlight->setName(label.toHtmlEscaped());  // the legend renders rich text
  refresh();
}

void PlanRuntimeOverlay::clearHighlight() {
  m_highlightFrom = m_highlightTo = -1;
  m_highlightLabel.clear();
  if (m_highlight) m_highlight->setName(tr("selected buffer's lifetime"));
  refresh();
}

void PlanRuntimeOverlay::refreshHighlight(qint64 t0, qint64 t1) {
  if (!m_highlightUpper) return;
  QList<QPointF> pts;
  if (m_highlightFrom >= 0) {
    const double top = m_chart->yAxis()->max();
    const qint64 last = m_data.timeline->positions - 1;
    for (const analysis::ExecutionTimeline& x : m_data.timeline->executions) {
      if (x.end_ps < t0 || x.start_ps > t1) continue;
      const double a = seconds(x.time_at(m_highlightFrom));
      const double b = seconds(x.time_at(m_highlightTo < 0 ? last : std::min(m_highlightTo, last)));
      // Even a buffer that lives for one position gets a visible sliver.
      const double w = std::max(b - a, double(t1 - t0) / kPsPerSecond * 2e-3);
      pts << QPointF(a, 0) << QPointF(a, top) << QPointF(a + w, top) << QPointF(a + w, 0);
    }
  }
  m_highlightUpper->replace(pts);
  m_highlight->setVisible(!pts.isEmpty());
}

std::optional<PlanHit> PlanRuntimeOverlay::hitAt(double s) const {
  if (!m_data.usable()) return std::nullopt;
  const std::int64_t t = picoseconds(s);
  const auto& ex = m_data.timeline->executions;
  for (std::size_t i = ex.size(); i-- > 0;) {
    if (t < ex[i].start_ps || t > ex[i].end_ps) continue;
    const analysis::MemoryCurve& curve = m_data.report->plan->curve;
    PlanHit hit;
    hit.execution = i;
    hit.timePs = t;
    hit.position = ex[i].position_at(t);
    hit.instruction = QString::fromUtf8(curve.instruction_at(std::size_t(hit.position)));
    hit.plannedBytes = curve.total_at(std::size_t(hit.position));
    return hit;
  }
  return std::nullopt;
}

QString PlanRuntimeOverlay::describe(double s) const {
  const auto hit = hitAt(s);
  if (!hit) return {};
  const analysis::PlanTimeline& tl = *m_data.timeline;
  const analysis::ExecutionTimeline& x = tl.executions[hit->execution];
  QString text =
      tr("%1 execution #%2 at %3\n").arg(safeText(tl.module)).arg(x.number).arg(secondsText(hit->timePs));
  text += x.mapping == analysis::TimeMapping::Kernels
              ? tr("placed by kernel times [measured]; instructions without a kernel interpolated\n")
              : tr("STRETCHED: no kernel named an instruction, the plan is spread over the host span\n");
  text += tr("instruction running: %1 (trace position %2)\nplanned %3 [derived]\n")
              .arg(safeText(hit->instruction))
              .arg(hit->position)
              .arg(bytesWithExact(hit->plannedBytes));
  const auto& idx = tl.allocator_events;
  const auto& mem = m_data.capture->memory_events();
  auto it = std::upper_bound(idx.begin(), idx.end(), hit->timePs,
                             [&](qint64 t, std::uint32_t i) { return t < mem[i].time_ps; });
  if (it != idx.begin()) text += tr("in use %1 [read]\n").arg(bytesWithExact(mem[*(it - 1)].bytes_in_use));
  text += tr("planned peak %1, runtime peak %2: %3")
              .arg(bytesText(x.planned_peak_bytes), bytesText(x.runtime_peak_bytes),
                   differenceLabel(hit->execution));
  const capture::Module* module = m_data.capture->find_module(std::to_string(tl.program_id));
  if (module && module->hlo) {
    const auto buffers = analysis::buffers_defined_by(*module->hlo, hit->instruction.toStdString());
    if (!buffers.empty()) {
      text += tr("\nbuffers %1 allocates [read]:").arg(safeText(hit->instruction));
      for (std::size_t k = 0; k < buffers.size() && k < 6; ++k)
        text += QStringLiteral("\n  %1 %2").arg(bytesText(buffers[k].bytes), safeText(buffers[k].shape));
      if (buffers.size() > 6) text += tr("\n  and %1 more").arg(buffers.size() - 6);
    }
  }
  return text;
}

}  // namespace oomscope::ui
