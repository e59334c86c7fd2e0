#pragma once
// One rank's live memory chart, painted directly (64 of them redraw at 10 Hz without a chart framework):
// allocated, reserved and driver (MPS) or device_used lines with the gap between allocated and the driver
// figure shaded, capacity and recommended-max lines, event markers, connection gaps hatched, RSS when
// that is all there is, and the optimizer step on a second axis at the right.

#include <QWidget>

#include "ui/live/live_chart_data.h"

namespace oomscope::ui {

class LiveChart : public QWidget {
  Q_OBJECT

 public:
  explicit LiveChart(QWidget* parent = nullptr);
  void setData(LiveChartData data);
  const LiveChartData& data() const { return m_data; }
  QSize sizeHint() const override { return {520, 230}; }
  QSize minimumSizeHint() const override { return {280, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  LiveChartData m_data;
};

// Colours shared by the chart's legend and the rank table.
QColor liveFieldColor(live::Field f);
QString liveFieldLabel(live::Field f);

}  // namespace oomscope::ui
