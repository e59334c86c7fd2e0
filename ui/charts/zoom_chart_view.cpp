#include "ui/charts/zoom_chart_view.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace oomscope::ui {

ZoomChartView::ZoomChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
  setRenderHint(QPainter::Antialiasing);
  setRubberBand(QChartView::NoRubberBand);
  setFocusPolicy(Qt::StrongFocus);
  // No widget tooltip: it would cover the series' hover tooltips. The pages say how to zoom.
}

void ZoomChartView::setXAxis(QValueAxis* axis, double fullMin, double fullMax) {
  m_axis = axis;
  m_fullMin = fullMin;
  m_fullMax = fullMax > fullMin ? fullMax : fullMin + 1;
}

void ZoomChartView::resetZoom() {
  if (m_axis) m_axis->setRange(m_fullMin, m_fullMax);
}

void ZoomChartView::setClampedRange(double lo, double hi) {
  if (!m_axis) return;
  const double full = m_fullMax - m_fullMin;
  // Below a millionth of the full range the labels stop telling ticks apart.
  const double span = std::clamp(hi - lo, full * 1e-6, full);
  if (lo < m_fullMin) lo = m_fullMin;
  if (lo + span > m_fullMax) lo = m_fullMax - span;
  m_axis->setRange(lo, lo + span);
}

void ZoomChartView::zoomAt(QPointF viewPos, double factor) {
  if (!m_axis || !chart()) return;
  const QRectF plot = chart()->plotArea();
  const double lo = m_axis->min();
  const double hi = m_axis->max();
  const QPointF scenePos = mapToScene(viewPos.toPoint());
  const double frac =
      plot.width() > 0 ? std::clamp((scenePos.x() - plot.left()) / plot.width(), 0.0, 1.0) : 0.5;
  const double anchor = lo + frac * (hi - lo);
  const double span = (hi - lo) * factor;
  setClampedRange(anchor - frac * span, anchor - frac * span + span);
}

void ZoomChartView::panPixels(double dx) {
  if (!m_axis || !chart()) return;
  const double width = chart()->plotArea().width();
  if (width <= 0) return;
  const double lo = m_axis->min();
  const double hi = m_axis->max();
  const double shift = dx * (hi - lo) / width;
  setClampedRange(lo + shift, hi + shift);
}

double ZoomChartView::valueAt(QPointF viewPos) const {
  if (!m_axis || !chart()) return 0;
  const QRectF plot = chart()->plotArea();
  const QPointF scenePos = mapToScene(viewPos.toPoint());
  const double frac =
      plot.width() > 0 ? std::clamp((scenePos.x() - plot.left()) / plot.width(), 0.0, 1.0) : 0.5;
  return m_axis->min() + frac * (m_axis->max() - m_axis->min());
}

void ZoomChartView::wheelEvent(QWheelEvent* event) {
  if (!m_axis) return QChartView::wheelEvent(event);
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomAt(event->position(), std::pow(0.8, steps));
  event->accept();
}

void ZoomChartView::mousePressEvent(QMouseEvent* event) {
  if (m_axis && event->button() == Qt::LeftButton) {
    m_pressPos = m_lastPos = event->position();
    if (event->modifiers() & Qt::ShiftModifier) {
      m_selecting = true;
      if (!m_band && scene()) {
        m_band = scene()->addRect(QRectF(), QPen(QColor(0x25, 0x63, 0xeb), 1), QColor(0x25, 0x63, 0xeb, 40));
        m_band->setZValue(100);
      }
      setCursor(Qt::IBeamCursor);
    } else {
      m_dragging = true;
      setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
    return;
  }
  QChartView::mousePressEvent(event);
}

void ZoomChartView::mouseMoveEvent(QMouseEvent* event) {
  if (m_selecting && m_band && chart()) {
    const QRectF plot = chart()->plotArea();
    const double a = std::clamp(mapToScene(m_pressPos.toPoint()).x(), plot.left(), plot.right());
    const double b = std::clamp(mapToScene(event->position().toPoint()).x(), plot.left(), plot.right());
    m_band->setRect(QRectF(std::min(a, b), plot.top(), std::abs(b - a), plot.height()));
    m_band->setVisible(true);
    event->accept();
    return;
  }
  if (m_dragging) {
    panPixels(m_lastPos.x() - event->position().x());
    m_lastPos = event->position();
    event->accept();
    return;
  }
  QChartView::mouseMoveEvent(event);
}

void ZoomChartView::mouseReleaseEvent(QMouseEvent* event) {
  if ((m_dragging || m_selecting) && event->button() == Qt::LeftButton) {
    const bool click = std::abs(event->position().x() - m_pressPos.x()) < 3 &&
                       std::abs(event->position().y() - m_pressPos.y()) < 3;
    if (m_band) m_band->setVisible(false);
    if (m_selecting && !click) {
      const double a = valueAt(m_pressPos), b = valueAt(event->position());
      emit rangeSelected(std::min(a, b), std::max(a, b));
    } else if (click) {
      emit valueClicked(valueAt(event->position()));
    }
    m_dragging = m_selecting = false;
    unsetCursor();
    event->accept();
    return;
  }
  QChartView::mouseReleaseEvent(event);
}

void ZoomChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  resetZoom();
  event->accept();
}

void ZoomChartView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Home:
      resetZoom();
      return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomAt(QPointF(width() / 2.0, 0), 0.8);
      return;
    case Qt::Key_Minus:
      zoomAt(QPointF(width() / 2.0, 0), 1.25);
      return;
    case Qt::Key_Left:
      panPixels(-40);
      return;
    case Qt::Key_Right:
      panPixels(40);
      return;
    default:
      QChartView::keyPressEvent(event);
  }
}

}  // namespace oomscope::ui
