#include "ui/charts/step_area_item.h"

#include <QChart>
#include <QPainter>
#include <QPolygonF>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace oomscope::ui {

StepAreaItem::StepAreaItem(QChart* chart, QValueAxis* xAxis, QValueAxis* yAxis, double z)
    : QGraphicsItem(chart), m_chart(chart), m_x(xAxis), m_y(yAxis), m_plot(chart->plotArea()) {
  setZValue(z);
  setAcceptedMouseButtons(Qt::NoButton);  // hover and clicks stay with the series and the view
}

void StepAreaItem::setOutline(QList<QPointF> points) {
  m_points = std::move(points);
  plotAreaChanged();
  update();
}

void StepAreaItem::setColors(QColor fill, QColor line) {
  m_fill = fill;
  m_line = line;
  update();
}

void StepAreaItem::plotAreaChanged() {
  const QRectF plot = m_chart->plotArea();
  if (plot == m_plot) return;
  prepareGeometryChange();
  m_plot = plot;
}

void StepAreaItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QRectF plot = m_chart->plotArea();
  const double x0 = m_x->min(), x1 = m_x->max(), y0 = m_y->min(), y1 = m_y->max();
  if (m_points.size() < 2 || plot.width() <= 0 || x1 <= x0 || y1 <= y0) return;
  const double sx = plot.width() / (x1 - x0), sy = plot.height() / (y1 - y0);
  // Far outside the plot a coordinate only needs to stay outside it (and not overflow).
  const auto px = [&](double x) {
    return std::clamp(plot.left() + (x - x0) * sx, plot.left() - 2, plot.right() + 2);
  };
  const auto py = [&](double y) {
    return std::clamp(plot.bottom() - (y - y0) * sy, plot.top() - 2, plot.bottom() + 2);
  };
  const double base = py(0);

  painter->save();
  painter->setRenderHint(QPainter::Antialiasing, false);
  painter->setClipRect(plot);
  // The fill: one rectangle per horizontal run, edges rounded to whole pixels so neighbours never overlap
  // (the fill is translucent) and a run under a pixel wide is left to the outline.
  for (qsizetype k = 0; k + 1 < m_points.size(); ++k) {
    const QPointF& a = m_points[k];
    const QPointF& b = m_points[k + 1];
    if (a.y() != b.y() || b.x() <= a.x() || a.y() <= 0) continue;
    const double left = std::round(px(a.x())), right = std::round(px(b.x()));
    if (right <= left) continue;
    const double top = std::round(py(a.y()));
    painter->fillRect(QRectF(left, top, right - left, base - top), m_fill);
  }
  QPolygonF line;
  line.reserve(m_points.size());
  for (const QPointF& p : m_points) line << QPointF(std::round(px(p.x())), std::round(py(p.y())));
  QPen pen(m_line);
  pen.setWidth(0);  // cosmetic, one pixel
  painter->setPen(pen);
  painter->drawPolyline(line);
  painter->restore();
}

}  // namespace oomscope::ui
