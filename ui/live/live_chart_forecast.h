#pragma once
// Painting the OOM forecast on a rank's live chart (live_chart.h): the limiting figure's curve extended as
// a dashed line from the forecast's time to the limit line, the forecast's range as a shaded fan between
// the early and the late crossing, a mark and its label where the line meets the limit, an arrow at the
// plot's edge when the crossing lies beyond the shown window; or the note of a forecast that has no time.

#include <QPainter>
#include <QRect>
#include <cstdint>
#include <functional>

#include "ui/live/live_chart_data.h"

namespace oomscope::ui {

struct LiveChartAxes {
  QRect plot;
  std::function<double(std::int64_t)> x;  // unix ns -> pixel
  std::function<double(double)> y;        // bytes -> pixel
};

// Paints d.projection (when shown) or d.forecastNote over the plot; the painter is clipped by the caller.
void paintForecast(QPainter& p, const LiveChartData& d, const LiveChartAxes& axes);

// The smallest y-axis top that keeps the forecast's limit line in view (0 when nothing is forecast).
std::int64_t forecastYTop(const LiveChartData& d);

}  // namespace oomscope::ui
