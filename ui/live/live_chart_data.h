#pragma once
// What one rank's chart draws, cut from the store under the session lock (so painting needs no lock):
// min/max buckets per series over the visible window, events, gaps, capacity lines, and the OOM forecast's
// projection to the limit line with its range.

#include <QString>
#include <QVector>
#include <cstdint>

#include "core/live/client/forecast.h"
#include "core/live/client/store.h"

namespace oomscope::ui {

struct LiveSeries {
  live::Field field;
  QVector<live::Bucket> buckets;
};

struct LiveChartData {
  QString title;
  QString status;  // "up", or why it is down
  bool connected = false;
  std::int64_t t0 = 0, t1 = 0;  // the window (unix ns)
  std::int64_t origin = 0;      // first sample of the session: the x axis counts seconds from here
  QVector<LiveSeries> series;   // allocated, reserved, driver or device_used, step
  live::Field top =
      live::Field::Driver;           // driver (MPS) or device_used: the line whose gap to allocated is shaded
  std::int64_t capacity = 0;         // hello total_bytes
  std::int64_t recommended_max = 0;  // last sample's recommended_max
  struct Mark {
    std::int64_t t;
    QString kind, message;
  };
  QVector<Mark> events;
  QVector<live::Gap> gaps;
  std::size_t samples = 0;
  bool has_bytes = false;  // any byte series has points
  // The rank's latest forecast OOM (derived), drawn as the limiting figure's curve extended from its
  // fitted level at the forecast's time to the limit line, met at t_oom, with the range t_early..t_late
  // (the step's own peak on top of the curve is what reaches the limit there).
  struct Projection {
    bool shown = false;  // a forecast OOM with a time (steps alone cannot be placed on the time axis)
    live::Field figure = live::Field::Allocated;
    std::int64_t limit = 0;
    std::int64_t t_from = 0, from_bytes = 0;  // the forecast's time; the figure's fitted baseline there
    std::int64_t t_oom = 0, t_early = 0, t_late = 0;
    QString label;  // "OOM step 312 (298-330)" or "OOM in 5.2 min"
  } projection;
  QString forecastNote;  // a forecast OOM that cannot be drawn, said in words (no step time); else empty
  // Why no limit line is drawn, said on the chart: no capacity and no recommended maximum known ("capacity
  // unknown: no limit line, no OOM forecast"), or a capacity too far above the curves to plot; else empty.
  QString limitNote;
};

// Sets d.projection (or d.forecastNote) from the rank's latest forecast, and widens d.t1 so that the
// projection's range fits, by at most the window's own span (the projection then leaves the plot).
void add_forecast(LiveChartData& d, const live::Forecast& forecast);

// Cuts rank `rank` of `store` for the window [t0, t1) at `buckets` points.
LiveChartData cut_chart_data(const live::Store& store, int rank, std::int64_t t0, std::int64_t t1,
                             int buckets);

}  // namespace oomscope::ui
