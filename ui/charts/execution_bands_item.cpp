#include "ui/charts/execution_bands_item.h"

#include <QChart>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace oomscope::ui {

namespace {

// The chart's own z values: grid 2, axes 3, series 4 and up (QtCharts' ChartPresenter::ZValues).
constexpr double kBandsZ = 3.5;

}  // namespace

ExecutionBandsItem::ExecutionBandsItem(QChart* chart, QValueAxis* xAxis)
    : QGraphicsItem(chart), m_chart(chart), m_x(xAxis), m_plot(chart->plotArea()) {
  setZValue(kBandsZ);
  setAcceptHoverEvents(true);
  setAcceptedMouseButtons(Qt::NoButton);  // drags and clicks go to the view (zoom, pan, select)
}

void ExecutionBandsItem::setSpans(std::vector<std::pair<double, double>> spans) {
  m_spans = std::move(spans);
  plotAreaChanged();
  update();
}

void ExecutionBandsItem::plotAreaChanged() {
  const QRectF plot = m_chart->plotArea();
  if (plot == m_plot) return;
  prepareGeometryChange();
  m_plot = plot;
}

void ExecutionBandsItem::setColors(QColor fill, QColor edge) {
  m_fill = fill;
  m_edge = edge;
  update();
}

QRectF ExecutionBandsItem::boundingRect() const { return m_plot; }

std::vector<QRectF> ExecutionBandsItem::bandRects() const {
  std::vector<QRectF> out;
  const QRectF plot = m_chart->plotArea();
  const double lo = m_x->min(), hi = m_x->max();
  if (plot.width() <= 0 || hi <= lo) return out;
  const double scale = plot.width() / (hi - lo);
  const double left = std::floor(plot.left()), right = std::ceil(plot.right());
  for (const auto& [a, b] : m_spans) {
    // Whole pixels, at least one wide: a band never vanishes however short its execution.
    double x0 = std::clamp(std::floor(plot.left() + (a - lo) * scale), left, right);
    double x1 = std::clamp(std::ceil(plot.left() + (b - lo) * scale), left, right);
    if (x1 <= x0) {
      if (b < lo || a > hi) continue;
      x1 = std::min(x0 + 1, right);
      x0 = x1 - 1;
    }
    if (!out.empty() && x0 < out.back().right()) x0 = out.back().right();  // no pixel filled twice
    if (x1 > x0) out.emplace_back(x0, plot.top(), x1 - x0, plot.height());
  }
  return out;
}

void ExecutionBandsItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const std::vector<QRectF> rects = bandRects();
  if (rects.empty()) return;
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing, false);
  painter->setClipRect(m_plot);
  for (const QRectF& r : rects) painter->fillRect(r, m_fill);
  // The edges, where a band is wide enough to keep some fill between them.
  QPen pen(m_edge);
  pen.setWidth(0);
  painter->setPen(pen);
  for (const QRectF& r : rects)
    if (r.width() >= 6) {
      painter->drawLine(QLineF(r.left(), r.top(), r.left(), r.bottom() - 1));
      painter->drawLine(QLineF(r.right() - 1, r.top(), r.right() - 1, r.bottom() - 1));
    }
  painter->restore();
}

void ExecutionBandsItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
  if (!m_hoverText) return;
  const double x = event->pos().x();
  for (const QRectF& r : bandRects())
    if (x >= r.left() && x < r.right()) {
      const QRectF plot = m_chart->plotArea();
      const double value = m_x->min() + (x - plot.left()) / plot.width() * (m_x->max() - m_x->min());
      QToolTip::showText(event->screenPos(), m_hoverText(value));
      return;
    }
}

}  // namespace oomscope::ui
