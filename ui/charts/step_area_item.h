#pragma once
// A filled step area painted by one item on a chart: the outline is a list of points in axis values (x
// non-decreasing, each level held until the next point, from the x axis up), as PlanRuntimeOverlay builds it
// for the planned heap. Each horizontal run is filled as a rectangle snapped to whole pixels down to the
// axis, and the outline drawn over it with a one-pixel pen. Drawn as a QAreaSeries, a hundred executions'
// curves with their full-height edges took 15-20 ms a frame to fill; this takes about one.

#include <QColor>
#include <QGraphicsItem>
#include <QList>
#include <QPointF>
#include <QRectF>

class QChart;
class QValueAxis;

namespace oomscope::ui {

class StepAreaItem : public QGraphicsItem {
 public:
  // A child of chart, painted in its plot area at z (the chart's series are at 4 and up).
  StepAreaItem(QChart* chart, QValueAxis* xAxis, QValueAxis* yAxis, double z);

  void setOutline(QList<QPointF> points);
  const QList<QPointF>& outline() const { return m_points; }
  void setColors(QColor fill, QColor line);
  // Call when the chart's plot area moves or resizes (the item's bounds).
  void plotAreaChanged();

  QRectF boundingRect() const override { return m_plot; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QChart* m_chart;
  QValueAxis* m_x;
  QValueAxis* m_y;
  QList<QPointF> m_points;
  QColor m_fill, m_line;
  QRectF m_plot;
};

}  // namespace oomscope::ui
