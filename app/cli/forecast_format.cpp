// The OOM forecast as JSON and text (see forecast_format.h).

#include "app/cli/forecast_format.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace oomscope::cli {

namespace {

nlohmann::json opt(const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

nlohmann::json forecast_json(const live::Forecast& f) {
  nlohmann::json j{{"state", live::forecast_state_name(f.state)},
                   {"oom_at_step", opt(f.oom_at_step)},
                   {"oom_in_seconds", opt(f.oom_in_seconds)},
                   {"driver", f.driver},
                   {"driver_kind", live::forecast_driver_name(f.driver_kind)},
                   {"t", f.t},
                   {"at_step", f.at_step >= 0 ? nlohmann::json(f.at_step) : nlohmann::json()},
                   {"tag", "derived"}};
  if (f.state == live::ForecastState::Oom)
    j["range"] = {{"steps", {opt(f.early_step), opt(f.late_step)}},
                  {"seconds", {opt(f.early_seconds), opt(f.late_seconds)}}};
  if (f.state != live::ForecastState::NoLimit)
    j["limit"] = {{"figure", live::field_name(f.figure)}, {"name", f.limit_name}, {"bytes", f.limit_bytes}};
  else
    j["limit"] = nullptr;
  nlohmann::json basis{{"by", f.by_step ? "steps" : "seconds"},
                       {"from", f.from_step},
                       {"to", f.to_step},
                       {"bins", f.bins},
                       {"samples", f.samples}};
  if (!f.since.empty()) basis["since"] = f.since;
  if (f.bins > 0) {
    basis["fit"] =
        "Theil-Sen line through each range's lowest value; step peak: 90th percentile of highest "
        "minus lowest";
    basis[f.by_step ? "growth_per_step" : "growth_per_second"] = f.growth;
    basis["growth_interval"] = {f.growth_lo, f.growth_hi};
    basis[f.by_step ? "peak_growth_per_step" : "peak_growth_per_second"] = f.peak_growth;
    basis["baseline"] = f.baseline;
    basis["step_peak"] = f.step_peak;
    basis["headroom"] = f.headroom;
    if (f.by_step) basis["seconds_per_step"] = f.seconds_per_step;
  }
  j["basis"] = std::move(basis);
  return j;
}

std::string forecast_line(int rank, const live::Forecast& f) {
  return nlohmann::json{{"rank", rank}, {"type", "forecast"}, {"t", f.t}, {"forecast", forecast_json(f)}}
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string forecast_summary(const live::Store& store, const live::ForecastTracker& forecasts) {
  std::string out;
  const auto& ranks = store.ranks();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = static_cast<int>(i);
    const live::RankSeries& series = ranks[i];
    if (series.samples.empty()) continue;
    // The forecast at the very end, whatever the tracker's interval left out.
    const live::Forecast now = live::forecast_rank(series, forecasts.options());
    out += series.label(r) + " forecast: " + live::forecast_sentence(now) + "\n";
    const auto& history = forecasts.history(r);
    const std::int64_t t0 = series.samples.front().t;
    if (!history.empty()) {  // up to 8 points, evenly spread over the history
      out += "  as it stood:";
      const std::size_t n = history.size(), shown = std::min<std::size_t>(n, 8);
      for (std::size_t k = 0; k < shown; ++k) {
        const live::ForecastPoint& p = history[shown == 1 ? n - 1 : k * (n - 1) / (shown - 1)];
        out += (k ? ", " : " ") +
               (p.at_step >= 0 ? "step " + std::to_string(p.at_step)
                               : "+" + seconds_text(static_cast<double>(p.t - t0) / 1e9)) +
               ": ";
        if (p.state == live::ForecastState::Oom)
          out += p.oom_at_step ? "OOM at " + std::to_string(*p.oom_at_step) : std::string("OOM");
        else
          out += p.state == live::ForecastState::NoOom     ? "none"
                 : p.state == live::ForecastState::NoLimit ? "no limit"
                                                           : "too short";
      }
      out += " [derived]\n";
    }
    for (const live::Event& e : series.events) {
      if (e.kind != "oom" || !e.step) continue;
      const live::ForecastLead lead = live::forecast_lead(history, *e.step);
      if (!lead.named) {
        out += "  the OOM at step " + std::to_string(*e.step) +
               ": no forecast before it named its step within 15 % [derived]\n";
      } else {
        out += "  the OOM at step " + std::to_string(*e.step) + ": first named within 15 % at step " +
               std::to_string(lead.first_step) + " (+" +
               seconds_text(static_cast<double>(lead.first_t - t0) / 1e9) + "), " +
               std::to_string(lead.steps_before()) + " steps before it (forecast step " +
               std::to_string(lead.named_step) +
               (lead.stayed ? "; it stayed within 15 %" : "; it did not stay within 15 %") + ") [derived]\n";
      }
      break;  // the first OOM: later ones are the split-and-retry's answers to it
    }
  }
  return out;
}

}  // namespace oomscope::cli
