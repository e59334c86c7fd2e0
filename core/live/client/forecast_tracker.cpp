// Forecasts as a session goes (see forecast_tracker.h).

#include "core/live/client/forecast_tracker.h"

#include <cstdlib>

namespace oomscope::live {

bool ForecastTracker::update(const Store& store, int rank) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= store.ranks().size()) return false;
  const RankSeries& series = store.ranks()[static_cast<std::size_t>(rank)];
  const Sample* last = series.last();
  if (!last) return false;
  if (static_cast<std::size_t>(rank) >= ranks_.size()) ranks_.resize(static_cast<std::size_t>(rank) + 1);
  PerRank& p = ranks_[static_cast<std::size_t>(rank)];
  // A clock that went back (a replayed or restarted agent) starts the interval again.
  if (p.has && last->t >= p.latest.t && last->t - p.latest.t < interval_ns_) return false;
  p.latest = forecast_rank(series, options_);
  p.has = true;
  p.history.push_back(ForecastPoint{p.latest.t, p.latest.at_step, p.latest.state, p.latest.oom_at_step});
  if (p.history.size() > 10'000) {  // keep every other of the older half
    std::size_t out = 0;
    const std::size_t half = p.history.size() / 2;
    for (std::size_t i = 0; i < p.history.size(); ++i)
      if (i >= half || i % 2 == 0) p.history[out++] = p.history[i];
    p.history.resize(out);
  }
  return true;
}

const Forecast* ForecastTracker::latest(int rank) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size()) return nullptr;
  const PerRank& p = ranks_[static_cast<std::size_t>(rank)];
  return p.has ? &p.latest : nullptr;
}

const std::vector<ForecastPoint>& ForecastTracker::history(int rank) const {
  static const std::vector<ForecastPoint> kNone;
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size()) return kNone;
  return ranks_[static_cast<std::size_t>(rank)].history;
}

ForecastLead forecast_lead(const std::vector<ForecastPoint>& history, std::int64_t oom_step,
                           double tolerance) {
  ForecastLead lead;
  lead.oom_step = oom_step;
  const double allowed = tolerance * static_cast<double>(oom_step);
  for (const ForecastPoint& p : history) {
    if (p.at_step < 0 || p.at_step >= oom_step) continue;
    const bool within = p.state == ForecastState::Oom && p.oom_at_step &&
                        std::llabs(*p.oom_at_step - oom_step) <= static_cast<std::int64_t>(allowed);
    if (within && !lead.named) {
      lead.named = true;
      lead.stayed = true;
      lead.first_step = p.at_step;
      lead.first_t = p.t;
      lead.named_step = *p.oom_at_step;
    } else if (!within && lead.named) {
      lead.stayed = false;
    }
  }
  return lead;
}

}  // namespace oomscope::live
