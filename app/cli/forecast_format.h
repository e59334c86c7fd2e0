#pragma once
// The OOM forecast (core/live/client/forecast.h) for `oomscope-cli watch` and `replay`: its JSON object
// (docs/live.md, "The OOM forecast") and the text a finished watch or a replay prints.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/live/client/forecast_tracker.h"

namespace oomscope::cli {

// {"state","oom_at_step","oom_in_seconds","range":{"steps":[lo,hi],"seconds":[lo,hi]},"limit":{"figure",
// "name","bytes"},"driver","driver_kind","at_step","t","basis":{...},"tag":"derived"}; oom_at_step and
// oom_in_seconds are null when no OOM is forecast (or the rank has no step counter / no step time).
nlohmann::json forecast_json(const live::Forecast& f);
// One JSON line: {"rank":N,"type":"forecast","t":...,"forecast":{...}}.
std::string forecast_line(int rank, const live::Forecast& f);

// Per rank: the forecast as it stands, a few points of its history, and for each OOM event with a step,
// how many steps before it the forecast first named its step within 15 %.
std::string forecast_summary(const live::Store& store, const live::ForecastTracker& forecasts);

}  // namespace oomscope::cli
