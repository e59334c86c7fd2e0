#include "ui/snapshot/whatif_chart.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/models/report_format.h"

namespace oomscope::ui {

namespace {

const QColor kRecorded(0x80, 0x80, 0x80);
const QColor kReserved(0x1f, 0x62, 0xc8);
const QColor kAllocated(0x2e, 0x9b, 0x47);
const QColor kOom(0xc8, 0x1e, 0x1e);

}  // namespace

WhatIfChart::WhatIfChart(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(220);
  setAutoFillBackground(true);
}

void WhatIfChart::setView(std::shared_ptr<const WhatIfView> view) {
  m_view = std::move(view);
  if (m_view && m_whole)
    clampRange(-1, lastIndex());
  else if (m_view)
    clampRange(m_lo, m_hi);  // the range the timeline set, in this trace
  rebuildShown();
  update();
}

std::uint64_t WhatIfChart::yMax() const {
  if (!m_view) return 0;
  std::uint64_t top = 1;
  for (const auto* curve : {&m_view->recorded, &m_view->replayed})
    for (const auto& p : *curve) top = std::max({top, p.reserved, p.requested});
  const auto& r = m_view->scenario().result;
  if (r.capacity != allocator::kNoLimit) top = std::max(top, r.capacity);
  return top + top / 20;
}

void WhatIfChart::clampRange(double lo, double hi) {
  // As MemoryTimelineWidget::setRange clamps it: within [-1, last], at least a few entries wide.
  const double min = -1, max = lastIndex();
  const double span = std::clamp(hi - lo, std::min(8.0, max - min), max - min);
  m_lo = std::clamp(lo, min, max - span);
  m_hi = m_lo + span;
}

void WhatIfChart::setRange(double lo, double hi) {
  m_whole = false;
  if (!m_view) {
    m_lo = lo;
    m_hi = hi;
    return;
  }
  clampRange(lo, hi);
  rebuildShown();
  update();
}

void WhatIfChart::resetZoom() {
  m_whole = true;
  clampRange(-1, lastIndex());
  rebuildShown();
  update();
}

void WhatIfChart::rebuildShown() {
  m_shownRecorded.clear();
  m_shownReplayed.clear();
  if (!m_view) return;
  const auto lo = static_cast<std::int64_t>(std::floor(m_lo));
  const auto hi = static_cast<std::int64_t>(std::ceil(m_hi));
  if (lo <= -1 && hi >= m_view->lastIndex) {  // the whole trace: as the worker downsampled it
    m_shownRecorded = m_view->recorded;
    m_shownReplayed = m_view->replayed;
    return;
  }
  m_shownRecorded =
      allocator::downsample_curve(m_view->recordedFull, m_view->lastIndex, lo, hi, kWhatIfCurvePoints);
  m_shownReplayed =
      allocator::downsample_curve(m_view->replayedFull, m_view->replayedTo, lo, hi, kWhatIfCurvePoints);
}

void WhatIfChart::userRange(double lo, double hi) {
  setRange(lo, hi);
  emit rangeChanged(m_lo, m_hi);
}

QRect WhatIfChart::plotRect() const { return rect().adjusted(78, 28, -14, -28); }

double WhatIfChart::xOf(double index) const {
  const QRect plot = plotRect();
  return plot.left() + (index - m_lo) / std::max(1e-9, m_hi - m_lo) * plot.width();
}

std::vector<std::pair<std::int64_t, QString>> WhatIfChart::axisTicks() const {
  std::vector<std::pair<std::int64_t, QString>> out;
  if (!m_view) return out;
  // Whole entries, every 1, 2, 5, 10, 20, 50, ... entries (the timeline's steps).
  double step = 1;
  const double rawStep = (m_hi - m_lo) / 5.0;
  for (int k = 0; step < rawStep; ++k) step *= (k % 3 == 1) ? 2.5 : 2.0;
  for (double idx = std::ceil(m_lo / step) * step; idx <= m_hi + 1e-9; idx += step) {
    const auto i = static_cast<std::int64_t>(std::llround(idx));
    if (i < -1 || i > m_view->lastIndex) continue;
    out.emplace_back(i, i < 0 ? tr("start") : tr("entry %1").arg(i));
  }
  return out;
}

void WhatIfChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QRect plot = plotRect();
  p.setPen(palette().text().color());
  if (!m_view) {
    p.drawText(rect(), Qt::AlignCenter, tr("Choose a capacity or settings to replay the trace."));
    return;
  }
  const double ymax = static_cast<double>(yMax());
  const auto yOf = [&](double bytes) { return plot.bottom() - bytes / ymax * plot.height(); };
  // Axes: bytes on the left, trace entries below.
  p.setPen(QColor(0xd0, 0xd0, 0xd0));
  for (int i = 0; i <= 4; ++i) {
    const double b = ymax * i / 4;
    const int y = static_cast<int>(yOf(b));
    p.drawLine(plot.left(), y, plot.right(), y);
    p.setPen(palette().text().color());
    p.drawText(QRect(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               bytesText(static_cast<qint64>(b)));
    p.setPen(QColor(0xd0, 0xd0, 0xd0));
  }
  p.setPen(palette().text().color());
  p.drawRect(plot);
  const QFontMetrics fm(font());
  for (const auto& [index, label] : axisTicks()) {
    const int x = static_cast<int>(xOf(static_cast<double>(index)));
    const int w = fm.horizontalAdvance(label) + 4;
    const int left = std::clamp(x - w / 2, 0, width() - w);
    p.drawLine(x, plot.bottom(), x, plot.bottom() + 3);
    p.drawText(QRect(left, plot.bottom() + 4, w, 16), Qt::AlignHCenter | Qt::AlignVCenter, label);
  }
  p.save();
  p.setClipRect(plot);
  const auto draw = [&](const std::vector<allocator::CurvePoint>& curve, bool reserved, const QColor& c,
                        Qt::PenStyle style, double width) {
    if (curve.empty()) return;
    QPainterPath path;
    for (std::size_t i = 0; i < curve.size(); ++i) {
      const double v = static_cast<double>(reserved ? curve[i].reserved : curve[i].requested);
      const double x = xOf(static_cast<double>(curve[i].index));
      if (i == 0)
        path.moveTo(x, yOf(v));
      else
        path.lineTo(x, yOf(v));
      const double next = i + 1 < curve.size() ? static_cast<double>(curve[i + 1].index)
                                               : static_cast<double>(curve[i].index) + 1;
      path.lineTo(xOf(next), yOf(v));  // a step: the figure holds until the next point
    }
    p.setPen(QPen(c, width, style));
    p.drawPath(path);
  };
  p.setRenderHint(QPainter::Antialiasing, true);
  draw(m_shownRecorded, true, kRecorded, Qt::SolidLine, 2.0);
  draw(m_shownRecorded, false, kRecorded, Qt::DashLine, 1.5);
  draw(m_shownReplayed, true, kReserved, Qt::SolidLine, 1.5);
  draw(m_shownReplayed, false, kAllocated, Qt::SolidLine, 1.5);
  p.setRenderHint(QPainter::Antialiasing, false);
  const auto& r = m_view->scenario().result;
  if (r.capacity != allocator::kNoLimit) {
    p.setPen(QPen(kOom, 1, Qt::DashLine));
    const int y = static_cast<int>(yOf(static_cast<double>(r.capacity)));
    p.drawLine(plot.left(), y, plot.right(), y);
    p.drawText(QRect(plot.left() + 4, y - 16, 300, 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("capacity %1").arg(bytesText(static_cast<qint64>(r.capacity))));
  }
  if (r.first_oom) {
    const auto at = static_cast<double>(r.first_oom->trace_index);
    if (at >= m_lo && at <= m_hi) {
      const int x = static_cast<int>(xOf(at));
      p.setPen(QPen(kOom, 2));
      p.drawLine(x, plot.top(), x, plot.bottom());
      p.drawText(QRect(x - 204, plot.top() + 2, 200, 14), Qt::AlignRight | Qt::AlignVCenter,
                 tr("OOM at entry %1").arg(r.first_oom->trace_index));
    }
  }
  p.restore();
  // Legend.
  int x = plot.left();
  const auto legend = [&](const QColor& c, Qt::PenStyle style, const QString& text) {
    p.setPen(QPen(c, 2, style));
    p.drawLine(x, 14, x + 22, 14);
    p.setPen(palette().text().color());
    const int w = p.fontMetrics().horizontalAdvance(text);
    p.drawText(QRect(x + 26, 6, w + 4, 16), Qt::AlignLeft | Qt::AlignVCenter, text);
    x += 26 + w + 18;
  };
  legend(kRecorded, Qt::SolidLine, tr("reserved, recorded [read]"));
  legend(kRecorded, Qt::DashLine, tr("in use (requested), recorded [read]"));
  legend(kReserved, Qt::SolidLine, tr("reserved, replayed [derived]"));
  legend(kAllocated, Qt::SolidLine, tr("in use (requested), replayed [derived]"));
}

void WhatIfChart::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0 || !m_view) return;
  const QRect plot = plotRect();
  const double center =
      m_lo + (event->position().x() - plot.left()) / std::max(1, plot.width()) * (m_hi - m_lo);
  const double factor = std::pow(0.8, steps);
  userRange(center - (center - m_lo) * factor, center + (m_hi - center) * factor);
  event->accept();
}

void WhatIfChart::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_dragFrom = event->pos().x();
  m_dragLo = m_lo;
  m_dragHi = m_hi;
}

void WhatIfChart::mouseMoveEvent(QMouseEvent* event) {
  if (!m_dragFrom || !(event->buttons() & Qt::LeftButton) || !m_view) return;
  const int dx = event->pos().x() - *m_dragFrom;
  if (std::abs(dx) <= 3) return;
  const double perPixel = (m_dragHi - m_dragLo) / std::max(1, plotRect().width());
  userRange(m_dragLo - dx * perPixel, m_dragHi - dx * perPixel);
}

void WhatIfChart::mouseReleaseEvent(QMouseEvent*) { m_dragFrom.reset(); }

}  // namespace oomscope::ui
