#pragma once
// What one rank's chart draws, cut from the store under the session lock (so painting needs no lock):
// min/max buckets per series over the visible window, events, gaps, capacity lines.

#include <QString>
#include <QVector>
#include <cstdint>

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
};

// Cuts rank `rank` of `store` for the window [t0, t1) at `buckets` points.
LiveChartData cut_chart_data(const live::Store& store, int rank, std::int64_t t0, std::int64_t t1,
                             int buckets);

}  // namespace oomscope::ui
