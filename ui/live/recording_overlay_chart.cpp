// Two recordings' lines on one axis, painted (recording_overlay_chart.h).

#include "ui/live/recording_overlay_chart.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/util/bytes.h"

namespace oomscope::ui {

namespace {

const QColor kColorA(31, 119, 180);  // blue
const QColor kColorB(255, 127, 14);  // orange

}  // namespace

std::vector<double> overlayTicks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 1) return {lo};
  const double raw = (hi - lo) / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push_back(v);
  return ticks;
}

RecordingOverlayChart::RecordingOverlayChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("recordingOverlayChart"));
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void RecordingOverlayChart::setOverlay(std::shared_ptr<const live::RecordingOverlay> overlay,
                                       const QString& nameA, const QString& nameB) {
  m_overlay = std::move(overlay);
  m_nameA = nameA;
  m_nameB = nameB;
  update();
}

void RecordingOverlayChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm = p.fontMetrics();
  if (!m_overlay) {
    p.drawText(rect(), Qt::AlignCenter, tr("No overlay yet."));
    return;
  }
  const live::RecordingOverlay& o = *m_overlay;
  std::int64_t top = 0;
  for (const auto* line : {&o.a.allocated, &o.a.reserved, &o.b.allocated, &o.b.reserved})
    for (const live::OverlayPoint& pt : *line) top = std::max(top, pt.bytes);
  const std::vector<double> yTicks = overlayTicks(0, double(std::max<std::int64_t>(top, 1)) * 1.05);
  const double yMax = std::max(yTicks.back(), double(std::max<std::int64_t>(top, 1)));
  int left = 0;
  for (double v : yTicks)
    left = std::max(left, fm.horizontalAdvance(QString::fromStdString(format_bytes(std::int64_t(v)))));
  const QRect plot(left + 14, fm.height() * 2 + 8, width() - left - 30, height() - fm.height() * 4 - 16);
  if (plot.width() < 20 || plot.height() < 20) return;
  const double x0 = o.x_min, x1 = o.x_max > o.x_min ? o.x_max : o.x_min + 1;
  auto px = [&](double x) { return plot.left() + (x - x0) / (x1 - x0) * plot.width(); };
  auto py = [&](double b) { return plot.bottom() - b / yMax * plot.height(); };

  p.setPen(palette().color(QPalette::Mid));
  for (double v : yTicks) {
    const int y = int(std::lround(py(v)));
    p.drawLine(plot.left(), y, plot.right(), y);
    const QString label = QString::fromStdString(format_bytes(std::int64_t(v)));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, y - fm.height() / 2, left + 8, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               label);
    p.setPen(palette().color(QPalette::Mid));
  }
  const bool steps = o.axis == live::OverlayAxis::Step;
  for (double v : overlayTicks(x0, x1)) {
    const int x = int(std::lround(px(v)));
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(x, plot.bottom(), x, plot.bottom() + 4);
    const QString label =
        steps ? QStringLiteral("step %1").arg(v, 0, 'g', 10) : QStringLiteral("%1 s").arg(v, 0, 'g', 6);
    const int w = fm.horizontalAdvance(label);
    const int lx = std::clamp(x - w / 2, 0, width() - w - 2);  // the last label stays inside the widget
    p.setPen(palette().color(QPalette::Text));
    p.drawText(lx, plot.bottom() + 4 + fm.ascent(), label);
  }
  p.setPen(palette().color(QPalette::Text));
  p.drawRect(plot);

  p.setClipRect(plot.adjusted(-1, -1, 1, 1));
  for (const auto& [line, color, dashed] :
       {std::tuple{&o.a.reserved, kColorA, true}, std::tuple{&o.b.reserved, kColorB, true},
        std::tuple{&o.a.allocated, kColorA, false}, std::tuple{&o.b.allocated, kColorB, false}}) {
    if (line->empty()) continue;
    QPainterPath path;
    path.moveTo(px(line->front().x), py(double(line->front().bytes)));
    for (const live::OverlayPoint& pt : *line) path.lineTo(px(pt.x), py(double(pt.bytes)));
    QPen pen(color, dashed ? 1.5 : 2.0);
    if (dashed) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    p.drawPath(path);
    if (line->size() == 1)
      p.drawEllipse(QPointF(px(line->front().x), py(double(line->front().bytes))), 2.5, 2.5);
  }
  p.setClipping(false);

  // The legend: both runs, solid allocated and dashed reserved.
  int x = plot.left();
  const int y = fm.height() / 2 + 4;
  for (const auto& [name, color] : {std::pair{m_nameA, kColorA}, std::pair{m_nameB, kColorB}}) {
    p.setPen(QPen(color, 2.0));
    p.drawLine(x, y + fm.height() / 2, x + 18, y + fm.height() / 2);
    const QString text = fm.elidedText(name, Qt::ElideMiddle, std::max(80, plot.width() / 2 - 40));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(x + 22, y + fm.ascent(), text);
    x += 22 + fm.horizontalAdvance(text) + 24;
  }
  p.drawText(QRect(plot.left(), plot.bottom() + fm.height() + 8, plot.width(), fm.height()), Qt::AlignCenter,
             tr("solid: allocated \u00b7 dashed: reserved \u00b7 rank %1 \u00b7 x: %2")
                 .arg(o.rank)
                 .arg(steps ? tr("the trainer's step") : tr("seconds since each recording's first sample")));
}

}  // namespace oomscope::ui
