#pragma once
// The analysed module's executions as shaded bands behind a chart's series: one rectangle per span (made
// by analysis::visible_spans for the visible window), filled over the plot area's height and snapped to
// whole pixels, each edge outlined where the band is wide enough to show one. Painted by one item in a
// few fillRect calls: drawn as a QAreaSeries, a few hundred narrow bands took over 100 ms a frame to fill.
// Hovering a band asks the given function for its text (a tooltip).

#include <QColor>
#include <QGraphicsItem>
#include <QRectF>
#include <functional>
#include <utility>
#include <vector>

class QChart;
class QValueAxis;

namespace oomscope::ui {

class ExecutionBandsItem : public QGraphicsItem {
 public:
  // A child of chart, painted in its plot area over the grid and under the series; x values on xAxis.
  ExecutionBandsItem(QChart* chart, QValueAxis* xAxis);

  // The bands, as [start, end] in x axis values (seconds), in order.
  void setSpans(std::vector<std::pair<double, double>> spans);
  const std::vector<std::pair<double, double>>& spans() const { return m_spans; }
  void setColors(QColor fill, QColor edge);
  // Call when the chart's plot area moves or resizes (the item's bounds).
  void plotAreaChanged();
  void setHoverText(std::function<QString(double)> text) { m_hoverText = std::move(text); }
  // The bands' rectangles in chart coordinates as painted now (clipped to the plot area).
  std::vector<QRectF> bandRects() const;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;

 private:
  QChart* m_chart;
  QValueAxis* m_x;
  std::vector<std::pair<double, double>> m_spans;
  QColor m_fill, m_edge;
  std::function<QString(double)> m_hoverText;
  QRectF m_plot;  // the plot area at the last setSpans/paint (boundingRect)
};

}  // namespace oomscope::ui
