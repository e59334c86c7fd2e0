#include "ui/snapshot/whatif_chart.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

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

QRect WhatIfChart::plotRect() const { return rect().adjusted(80, 28, -16, -28); }

void WhatIfChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QRect plot = plotRect();
  p.setPen(palette().text().color());
  if (!m_view) {
    p.drawText(rect(), Qt::AlignCenter, tr("Choose a capacity or settings to replay the trace."));
    return;
  }
  const double lo = -1, hi = std::max<double>(0, static_cast<double>(m_view->lastIndex));
  const double ymax = static_cast<double>(yMax());
  const auto xOf = [&](double index) { return plot.left() + (index - lo) / (hi - lo + 1) * plot.width(); };
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
  for (int i = 0; i <= 4; ++i) {
    const double index = lo + (hi - lo) * i / 4;
    const int x = static_cast<int>(xOf(index));
    const QRect box = i == 0   ? QRect(x, plot.bottom() + 4, 120, 16)
                      : i == 4 ? QRect(x - 120, plot.bottom() + 4, 120, 16)
                               : QRect(x - 60, plot.bottom() + 4, 120, 16);
    p.drawText(box,
               (i == 0   ? Qt::AlignLeft
                : i == 4 ? Qt::AlignRight
                         : Qt::AlignHCenter) |
                   Qt::AlignVCenter,
               tr("entry %1").arg(static_cast<qint64>(index)));
  }
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
  draw(m_view->recorded, true, kRecorded, Qt::SolidLine, 2.0);
  draw(m_view->recorded, false, kRecorded, Qt::DashLine, 1.5);
  draw(m_view->replayed, true, kReserved, Qt::SolidLine, 1.5);
  draw(m_view->replayed, false, kAllocated, Qt::SolidLine, 1.5);
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
    const int x = static_cast<int>(xOf(static_cast<double>(r.first_oom->trace_index)));
    p.setPen(QPen(kOom, 2));
    p.drawLine(x, plot.top(), x, plot.bottom());
    p.drawText(QRect(x - 204, plot.top() + 2, 200, 14), Qt::AlignRight | Qt::AlignVCenter,
               tr("OOM at entry %1").arg(r.first_oom->trace_index));
  }
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

}  // namespace oomscope::ui
