#pragma once
// A chart view that zooms and pans along the x axis only (bytes stay comparable while the user looks at a
// narrower stretch of time or program order): the wheel zooms around the cursor, a left drag pans, a
// double click (or Home) shows the whole range again. The range never leaves the data's full range.
// Shift+drag selects a range of x (rangeSelected); a click without a drag reports its x (valueClicked).

#include <QChartView>

class QValueAxis;

namespace oomscope::ui {

class ZoomChartView : public QChartView {
  Q_OBJECT

 public:
  explicit ZoomChartView(QChart* chart, QWidget* parent = nullptr);

  // The x axis to drive and the widest range it may show; call after each refill of the chart.
  void setXAxis(QValueAxis* axis, double fullMin, double fullMax);
  void resetZoom();
  // Zooms by factor (< 1 zooms in) around the x value at the given view position.
  void zoomAt(QPointF viewPos, double factor);
  // Shifts the visible range by dx pixels of the plot area (positive: toward larger x).
  void panPixels(double dx);
  // The x value under a view position (clamped to the visible range).
  double valueAt(QPointF viewPos) const;

 signals:
  void valueClicked(double x);
  void rangeSelected(double lo, double hi);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void setClampedRange(double lo, double hi);

  QValueAxis* m_axis = nullptr;
  double m_fullMin = 0;
  double m_fullMax = 1;
  bool m_dragging = false;
  bool m_selecting = false;
  QPointF m_lastPos;
  QPointF m_pressPos;
  QGraphicsRectItem* m_band = nullptr;
};

}  // namespace oomscope::ui
