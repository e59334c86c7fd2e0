#pragma once
// Adapters from PlanCurveSeries to Qt Charts, one per chart:
//   PlanCurveChart  heap size over program order (parameters/outputs/constants as the base, the temp heap on
//                   top), the peak marked, the pool's capacity as a dashed line when it is in range;
//   RoleBarChart    the role split at the peak as one stacked horizontal bar.
// Each owns a QChart until a view takes it (QChartView::setChart), refills it in place on setSeries(), and
// shows exact bytes in tooltips on hover. Byte axes are in one binary unit named in the axis title.

#include <QObject>
#include <QPair>
#include <QString>

#include "ui/charts/chart_axes.h"
#include "ui/charts/chart_series.h"

class QAreaSeries;
class QChart;
class QLineSeries;
class QValueAxis;

namespace oomscope::ui {

class PlanCurveChart : public QObject {
  Q_OBJECT

 public:
  explicit PlanCurveChart(QObject* parent = nullptr);

  QChart* chart() const { return m_chart; }
  QValueAxis* xAxis() const { return m_x; }
  void setSeries(PlanCurveSeries series);
  void clear();

  // The capacity line is drawn only when the pool is within 2x the peak; otherwise this says why.
  bool capacityShown() const { return m_capacityShown; }
  QString capacityNote() const { return m_capacityNote; }
  // Hover text for the point nearest program position x.
  QString describe(double x) const;
  const PlanCurveSeries& series() const { return m_series; }
  // Shades program positions [from, to] (to < 0: to the end) and names the band in the legend (a selected
  // buffer's lifetime, an instruction's positions); from < 0 removes it.
  void setHighlight(qint64 from, qint64 to, const QString& label);
  // The shaded positions, or (-1, -1).
  QPair<qint64, qint64> highlight() const { return {m_highlightFrom, m_highlightTo}; }
  QString highlightLabel() const { return m_highlightLabel; }

 private:
  QChart* m_chart;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
  QAreaSeries* m_bandArea = nullptr;
  QLineSeries* m_band = nullptr;  // upper line of the highlight area
  qint64 m_highlightFrom = -1;
  qint64 m_highlightTo = -1;
  QString m_highlightLabel;
  PlanCurveSeries m_series;
  ByteUnit m_unit;
  bool m_capacityShown = false;
  QString m_capacityNote;
};

class RoleBarChart : public QObject {
  Q_OBJECT

 public:
  explicit RoleBarChart(QObject* parent = nullptr);

  QChart* chart() const { return m_chart; }
  void setSeries(const PlanCurveSeries& series);
  void clear();
  int barSetCount() const;

 private:
  QChart* m_chart;
};

// True when a pool of `capacity` should be drawn on a byte axis whose data tops out at `maxBytes`: at most
// factor times the data, so the data keeps enough of the chart's height to be read.
bool capacityInRange(qint64 capacity, qint64 maxBytes, double factor = 2.0);

}  // namespace oomscope::ui
