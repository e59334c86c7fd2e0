#pragma once
// Adapters from PlanCurveSeries to Qt Charts, one per chart:
//   PlanCurveChart  heap size over program order (parameters/outputs/constants as the base, the temp heap on
//                   top), the peak marked, the pool's capacity as a dashed line when it is in range;
//   RoleBarChart    the role split at the peak as one stacked horizontal bar.
// Each owns a QChart until a view takes it (QChartView::setChart), refills it in place on setSeries(), and
// shows exact bytes in tooltips on hover. Byte axes are in one binary unit named in the axis title.

#include <QObject>
#include <QString>

#include "ui/charts/chart_axes.h"
#include "ui/charts/chart_series.h"

class QChart;
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

 private:
  QChart* m_chart;
  QValueAxis* m_x = nullptr;
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
