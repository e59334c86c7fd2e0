#pragma once
// Forecasts as a session goes: each rank's forecast (forecast.h) recomputed at most once per `interval`
// of the rank's own sample time, so that a replay gives the forecast as it stood at each point of the
// recording, exactly as a live watch gave it. Keeps a compact history per rank (thinned past 10,000
// points) and says how early a forecast named the step of a real OOM. Not thread-safe: LiveSession
// locks it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/live/client/forecast.h"

namespace oomscope::live {

struct ForecastPoint {
  std::int64_t t = 0;
  std::int64_t at_step = -1;
  ForecastState state = ForecastState::NotEnoughHistory;
  std::optional<std::int64_t> oom_at_step;
};

// How early the forecast named a real OOM: the first point, before the OOM, whose forecast step was within
// `tolerance` (0.15: 15 %) of the OOM's step, and whether every later point before the OOM stayed within.
struct ForecastLead {
  bool named = false;
  std::int64_t oom_step = 0;
  std::int64_t first_step = 0;  // the step at which it was first named
  std::int64_t first_t = 0;
  std::int64_t named_step = 0;  // the step it forecast then
  bool stayed = false;
  std::int64_t steps_before() const { return oom_step - first_step; }
};
ForecastLead forecast_lead(const std::vector<ForecastPoint>& history, std::int64_t oom_step,
                           double tolerance = 0.15);

class ForecastTracker {
 public:
  explicit ForecastTracker(ForecastOptions options = {}, std::int64_t interval_ns = 1'000'000'000)
      : options_(options), interval_ns_(interval_ns) {}

  // Recomputes `rank`'s forecast when its latest sample lies at least the interval after the one the last
  // forecast was made at (or it has none). Returns true when it did.
  bool update(const Store& store, int rank);
  // The rank's latest forecast, or null before its first.
  const Forecast* latest(int rank) const;
  const std::vector<ForecastPoint>& history(int rank) const;
  const ForecastOptions& options() const { return options_; }

 private:
  struct PerRank {
    bool has = false;
    Forecast latest;
    std::vector<ForecastPoint> history;
  };
  ForecastOptions options_;
  std::int64_t interval_ns_;
  std::vector<PerRank> ranks_;
};

}  // namespace oomscope::live
