// Cutting one rank's chart data from the store (see live_chart_data.h).

#include "ui/live/live_chart_data.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

using live::Field;

LiveChartData cut_chart_data(const live::Store& store, int rank, std::int64_t t0, std::int64_t t1,
                             int buckets) {
  LiveChartData d;
  d.t0 = t0;
  d.t1 = t1;
  d.origin = store.first_t();
  if (rank < 0 || static_cast<std::size_t>(rank) >= store.ranks().size()) return d;
  const live::RankSeries& r = store.ranks()[static_cast<std::size_t>(rank)];
  d.title = safeText(r.label(rank));
  if (r.hello && !r.hello->backend.empty()) {
    d.title += QStringLiteral(" \u00b7 ") + safeText(r.hello->backend);
    if (!r.hello->device.empty()) d.title += QStringLiteral(" ") + safeText(r.hello->device);
  }
  d.connected = r.connected;
  d.status = safeText(r.status);
  d.samples = r.samples.size();
  d.capacity = r.hello ? r.hello->total_bytes : 0;
  if (const live::Sample* last = r.last()) d.recommended_max = last->get(Field::RecommendedMax, 0);
  const bool has_driver = (r.fields_seen >> static_cast<int>(Field::Driver)) & 1u;
  d.top = has_driver ? Field::Driver : Field::DeviceUsed;
  for (Field f : {Field::Allocated, Field::Reserved, d.top, Field::Rss, Field::Step}) {
    if (!((r.fields_seen >> static_cast<int>(f)) & 1u)) continue;
    const auto b = store.downsample(rank, f, t0, t1, buckets);
    LiveSeries s{f, QVector<live::Bucket>(b.begin(), b.end())};
    if (f != Field::Step && !s.buckets.isEmpty()) d.has_bytes = true;
    d.series.push_back(std::move(s));
  }
  // The forecast's limit (forecast.cpp, choose_limit) is the capacity or the recommended maximum: with
  // neither, there is no line to draw and nothing to forecast against.
  if (d.has_bytes && d.capacity <= 0 && d.recommended_max <= 0)
    d.limitNote = QObject::tr("capacity unknown: no limit line, no OOM forecast");
  for (const live::Event& e : r.events)
    if (e.t >= t0 && e.t < t1) d.events.push_back({e.t, safeText(e.kind), safeText(e.message)});
  for (const live::Gap& g : r.gaps)
    if ((g.to == 0 || g.to >= t0) && g.from < t1) d.gaps.push_back(g);
  return d;
}

void add_forecast(LiveChartData& d, const live::Forecast& f) {
  if (f.state != live::ForecastState::Oom) return;
  const QString cell = QString::fromStdString(live::forecast_cell(f));
  if (!f.oom_in_seconds) {
    d.forecastNote =
        QObject::tr("OOM forecast: %1 (no step time known to place it on the time axis)").arg(cell);
    return;
  }
  auto at = [&](const std::optional<double>& s) {
    return f.t + static_cast<std::int64_t>(std::llround(std::max(0.0, s.value_or(*f.oom_in_seconds)) * 1e9));
  };
  LiveChartData::Projection& p = d.projection;
  p.shown = true;
  p.figure = f.figure;
  p.limit = f.limit_bytes;
  p.t_from = f.t;
  p.from_bytes = std::min(f.limit_bytes, f.baseline);
  p.t_oom = at(f.oom_in_seconds);
  p.t_early = std::min(p.t_oom, at(f.early_seconds));
  p.t_late = std::max(p.t_oom, at(f.late_seconds));
  p.label = QObject::tr("OOM %1").arg(cell);
  const std::int64_t span = std::max<std::int64_t>(1, d.t1 - d.t0);
  const std::int64_t want = p.t_late + span / 20;
  d.t1 = std::clamp(want, d.t1, d.t1 + span);
}

}  // namespace oomscope::ui
