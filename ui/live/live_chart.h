#pragma once
// One rank's live memory chart, painted directly (64 of them redraw at 10 Hz without a chart framework):
// allocated, reserved and driver (MPS) or device_used lines with the gap between allocated and the driver
// figure shaded, capacity and recommended-max lines, event markers, connection gaps hatched, RSS when
// that is all there is, and the optimizer step on a second axis at the right.

#include <QWidget>
#include <cstdint>
#include <vector>

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

// One label of the time axis: where (unix ns) and what it says (the time since the session's first sample).
struct LiveTimeTick {
  std::int64_t t = 0;
  QString label;
};

// About `count` ticks at a round step over [t0, t1] (unix ns), labelled by the time since `origin`: every
// label distinct and with its unit, in the largest of h, min, s or ms that shows the step exactly (ms when
// the axis ends under a second).
std::vector<LiveTimeTick> liveTimeTicks(std::int64_t origin, std::int64_t t0, std::int64_t t1, int count = 5);

// Colours shared by the chart's legend and the rank table.
QColor liveFieldColor(live::Field f);
QString liveFieldLabel(live::Field f);

}  // namespace oomscope::ui
