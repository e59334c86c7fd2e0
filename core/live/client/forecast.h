#pragma once
// The OOM forecast of one rank: at which optimizer step (and in how many seconds) the figure that limits
// the rank crosses its limit, with a range, or why no OOM is forecast. Every figure here is derived.
//
// The limit, from the latest sample and the hello (the first that applies):
//   driver vs the MPS recommended maximum;  device_used vs the device total (the hello's total_bytes);
//   reserved vs the total;  allocated (with peak_allocated as the step's peak) vs the total.
// The model, said in each forecast's `driver`:
//   - history: the samples since the last restart (a `restart` event, the step counter going back, or a
//     connection gap after which the figure came back lower), at most `window_steps` steps of it;
//   - the steps are cut into up to `bins` equal ranges; per range the lowest value of the figure (the
//     baseline between the step's own allocations) and the highest (the step's peak: the figure, or
//     peak_allocated when that is higher);
//   - growth: a Theil-Sen line through the baselines (a checkpoint spike or an evaluation pass moves a few
//     ranges, not the median of the pairwise slopes); it counts only when its 95 % interval is above zero;
//   - the step's own peak: the 90th percentile of (peak - baseline) over the ranges, so that the OOM is
//     forecast for the step whose peak no longer fits on top of the baseline; a rank whose headroom is
//     already under that peak fails in its next step, even with no growth;
//   - shapes: when the peaks rise faster than the baselines while distinct input shapes are still being
//     reported, the peaks' own line is extrapolated and the shapes named as the driver.
// The range: the early end takes the interval's upper slope and the largest step peak seen, the late end
// the lower slope and the median step peak. No forecast from fewer than `min_steps` steps or `min_bins`
// ranges ("not enough history yet"), and none further ahead than `horizon` times the steps fitted ("no
// OOM in sight", with the crossing the line would reach). Ranks that report no step are forecast over
// seconds instead (oom_at_step is then absent).

#include <cstdint>
#include <optional>
#include <string>

#include "core/live/client/store.h"

namespace oomscope::live {

struct ForecastOptions {
  std::int64_t window_steps = 1000;  // fit over at most this many of the latest steps
  std::int64_t min_steps = 50;       // and at least this many
  double window_seconds = 600;       // the same for ranks without a step counter
  double min_seconds = 60;
  int bins = 40;
  int min_bins = 8;
  double horizon = 20;  // no forecast further ahead than this many times the span fitted
};

enum class ForecastState {
  Oom,               // a crossing is forecast: oom_at_step / oom_in_seconds
  NoOom,             // "no OOM in sight"
  NotEnoughHistory,  // "not enough history yet"
  NoLimit,           // nothing to compare with: no capacity, no recommended maximum
};
enum class ForecastDriver { None, Growth, StepPeak, Shapes };
const char* forecast_state_name(ForecastState s) noexcept;    // "oom", "no_oom", "not_enough_history", ...
const char* forecast_driver_name(ForecastDriver d) noexcept;  // "growth", "step_peak", "shapes", "none"

struct Forecast {
  ForecastState state = ForecastState::NotEnoughHistory;
  ForecastDriver driver_kind = ForecastDriver::None;
  std::string driver;  // the reason in words: "+12.4 MiB per step (leak-like, steady for 800 steps)"

  // The limiting figure and its limit (limit_bytes 0 when NoLimit).
  Field figure = Field::Allocated;
  std::string limit_name;  // "capacity", "recommended_max"
  std::int64_t limit_bytes = 0;

  bool by_step = true;        // fitted over optimizer steps (else over seconds)
  std::int64_t t = 0;         // the latest sample's time (unix ns): when the forecast was made
  std::int64_t at_step = -1;  // the latest step (-1 without a step counter)
  std::optional<std::int64_t> oom_at_step, early_step, late_step;
  std::optional<double> oom_in_seconds, early_seconds, late_seconds;

  // Basis: what was fitted.
  std::int64_t from_step = 0, to_step = 0;  // by_step; else seconds since the first sample fitted
  int bins = 0;
  std::int64_t samples = 0;
  std::string since;  // why the history starts where it does ("the restart at step 3,000"), or empty
  double growth = 0, growth_lo = 0, growth_hi = 0;  // bytes per step (or per second), the baseline's
  double peak_growth = 0;                           // the step peaks' line
  std::int64_t baseline = 0;                        // the baseline's line at the latest step
  std::int64_t step_peak = 0;                       // 90th percentile of peak above baseline
  std::int64_t headroom = 0;                        // limit - baseline
  double seconds_per_step = 0;
};

Forecast forecast_rank(const RankSeries& rank, const ForecastOptions& options = {});

// One short cell for a table: "step 312 (298-330)", "in 5.2 min", "no OOM in sight", "history 23/50
// steps", "no limit".
std::string forecast_cell(const Forecast& f);
// One sentence: the state, the step or time, the range, the limit and the driver; "[derived]" at the end.
std::string forecast_sentence(const Forecast& f);

}  // namespace oomscope::live
