// The OOM forecast of one rank (see forecast.h).

#include "core/live/client/forecast.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/live/client/robust_fit.h"
#include "core/util/bytes.h"

namespace oomscope::live {

namespace {

struct Limit {
  bool known = false;
  Field figure = Field::Allocated;
  const char* name = "";
  std::int64_t bytes = 0;
};

Limit choose_limit(const RankSeries& r, const Sample& s) {
  const std::int64_t capacity = r.hello && r.hello->total_bytes > 0 ? r.hello->total_bytes : 0;
  if (s.has(Field::Driver) && s.get(Field::RecommendedMax) > 0)
    return {true, Field::Driver, "recommended_max", s.get(Field::RecommendedMax)};
  if (capacity > 0)
    for (Field f : {Field::DeviceUsed, Field::Reserved, Field::Allocated})
      if (s.has(f)) return {true, f, "capacity", capacity};
  return {};
}

// The highest the figure went around this sample: allocator figures include the step's peak.
std::int64_t top_of(const Sample& s, Field f) {
  std::int64_t v = s.get(f);
  if ((f == Field::Allocated || f == Field::Reserved) && s.has(Field::PeakAllocated))
    v = std::max(v, s.get(Field::PeakAllocated));
  return v;
}

std::string signed_bytes(double b) {
  const auto v = static_cast<std::int64_t>(std::llround(b));
  return (v < 0 ? "-" : "+") + format_bytes(v < 0 ? -v : v);
}

// "+12.4 MiB per step", "+3.1 GiB per 1,000 steps", "+40 MiB per minute".
// The driver cache is given per 1,000 steps, as the MPS reference counts its restarts.
std::string rate_text(double per, bool by_step, bool per_thousand) {
  if (!by_step) return signed_bytes(per * 60) + " per minute";
  if (std::fabs(per) >= 1024.0 * 1024.0 && !per_thousand) return signed_bytes(per) + " per step";
  return signed_bytes(per * 1000) + " per 1,000 steps";
}

std::string figure_label(Field f) {
  switch (f) {
    case Field::Driver:
      return "driver cache ";
    case Field::DeviceUsed:
      return "device memory ";
    case Field::Reserved:
      return "reserved ";
    default:
      return "";
  }
}

std::string span_text(double span, bool by_step) {
  return by_step ? format_thousands(static_cast<std::int64_t>(std::llround(span))) + " steps"
                 : format_thousands(static_cast<std::int64_t>(std::llround(span))) + " s";
}

std::string duration_text(double s) {
  char buf[48];
  if (s < 10)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 90)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 90 * 60)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 48 * 3600)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  return buf;
}

struct Bin {
  int samples = 0;
  double x_sum = 0, t_sum = 0;
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t top = std::numeric_limits<std::int64_t>::min();
  double top_x = 0;  // where the top was seen
};

struct Candidate {
  ForecastDriver kind = ForecastDriver::None;
  std::string driver;
  double x = 0, early = 0, late = 0;
};

}  // namespace

const char* forecast_state_name(ForecastState s) noexcept {
  switch (s) {
    case ForecastState::Oom:
      return "oom";
    case ForecastState::NoOom:
      return "no_oom";
    case ForecastState::NotEnoughHistory:
      return "not_enough_history";
    case ForecastState::NoLimit:
      return "no_limit";
  }
  return "?";
}

const char* forecast_driver_name(ForecastDriver d) noexcept {
  switch (d) {
    case ForecastDriver::None:
      return "none";
    case ForecastDriver::Growth:
      return "growth";
    case ForecastDriver::StepPeak:
      return "step_peak";
    case ForecastDriver::Shapes:
      return "shapes";
  }
  return "?";
}

Forecast forecast_rank(const RankSeries& r, const ForecastOptions& o) {
  Forecast f;
  const Sample* last = r.last();
  if (!last) {
    f.driver = "no samples yet";
    return f;
  }
  f.t = last->t;
  const Limit limit = choose_limit(r, *last);
  if (!limit.known) {
    f.state = ForecastState::NoLimit;
    f.driver =
        "no limit known: the agent reports no device capacity (hello total_bytes) and no MPS recommended "
        "maximum";
    return f;
  }
  f.figure = limit.figure;
  f.limit_name = limit.name;
  f.limit_bytes = limit.bytes;
  f.by_step = last->has(Field::Step);
  f.at_step = f.by_step ? last->get(Field::Step) : -1;
  const bool by_step = f.by_step;
  const Field fig = limit.figure;
  auto x_of = [&](const Sample& s) {
    return by_step ? static_cast<double>(s.get(Field::Step)) : static_cast<double>(s.t - last->t) / 1e9;
  };
  const double x_now = x_of(*last);
  const double window = by_step ? static_cast<double>(o.window_steps) : o.window_seconds;
  const double min_span = by_step ? static_cast<double>(o.min_steps) : o.min_seconds;

  // The current stretch of history: back from the latest sample to a restart, or to the window's start.
  std::vector<std::int64_t> restarts;
  for (const Event& e : r.events)
    if (e.kind == "restart") restarts.push_back(e.t);
  const auto& s = r.samples;
  auto usable = [&](const Sample& a) { return a.has(fig) && (!by_step || a.has(Field::Step)); };
  // After a gap, a new process shows as a figure below everything just before the gap (a reconnection to
  // the same process comes back within its usual range).
  auto came_back_lower = [&](std::size_t before, const Sample& after) {
    std::int64_t low = std::numeric_limits<std::int64_t>::max();
    for (std::size_t k = before + 1, seen = 0; k-- > 0 && seen < 32;)
      if (usable(s[k])) low = std::min(low, s[k].get(fig)), ++seen;
    return after.get(fig) < low - limit.bytes / 100;
  };
  std::size_t begin = s.size() - 1;
  const Sample* next = last;  // the sample after `i` that is kept
  for (std::size_t i = s.size() - 1; i-- > 0;) {
    const Sample& a = s[i];
    if (!usable(a)) continue;
    if (x_of(a) < x_now - window) break;
    if (by_step && a.get(Field::Step) > next->get(Field::Step)) {
      f.since = "the step counter going back from " + format_thousands(a.get(Field::Step)) + " to " +
                format_thousands(next->get(Field::Step));
      break;
    }
    const bool restarted = std::any_of(restarts.begin(), restarts.end(),
                                       [&](std::int64_t t) { return t > a.t && t <= next->t; });
    if (restarted) {
      f.since = by_step ? "the restart at step " + format_thousands(a.get(Field::Step)) : "the restart";
      break;
    }
    const bool gap = std::any_of(r.gaps.begin(), r.gaps.end(), [&](const Gap& g) {
      return g.from >= a.t && g.from < next->t && (g.to == 0 || g.to <= next->t);
    });
    if (gap && came_back_lower(i, *next)) {
      f.since = by_step ? "the reconnection after step " + format_thousands(a.get(Field::Step)) +
                              " (the figure came back lower: a new process)"
                        : "the reconnection (the figure came back lower: a new process)";
      break;
    }
    begin = i;
    next = &a;
  }
  const double x_first = x_of(s[begin]);
  const double span = x_now - x_first;
  f.from_step = by_step ? static_cast<std::int64_t>(x_first) : 0;
  f.to_step = by_step ? static_cast<std::int64_t>(x_now) : static_cast<std::int64_t>(std::llround(span));
  const std::string since = f.since.empty() ? "" : " since " + f.since;
  if (span < min_span) {
    f.driver = "not enough history yet: " + span_text(span, by_step) + since + " (a forecast needs " +
               span_text(min_span, by_step) + ")";
    return f;
  }

  // Ranges of steps (or seconds): the baseline is each range's lowest value, the peak its highest.
  const int nb = std::max(1, o.bins);
  const double width = span / nb;
  std::vector<Bin> bins(static_cast<std::size_t>(nb));
  for (std::size_t i = begin; i < s.size(); ++i) {
    const Sample& a = s[i];
    if (!usable(a)) continue;
    const double x = x_of(a);
    const int b = std::clamp(static_cast<int>((x - x_first) / width), 0, nb - 1);
    Bin& k = bins[static_cast<std::size_t>(b)];
    ++k.samples;
    ++f.samples;
    k.x_sum += x;
    k.t_sum += static_cast<double>(a.t - last->t) / 1e9;
    k.min = std::min(k.min, a.get(fig));
    if (const std::int64_t top = top_of(a, fig); top > k.top) k.top = top, k.top_x = x;
  }
  std::vector<double> bx, bmin, btop, btop_x, bt;
  for (const Bin& k : bins) {
    if (k.samples == 0) continue;
    bx.push_back(k.x_sum / k.samples);
    bt.push_back(k.t_sum / k.samples);
    bmin.push_back(static_cast<double>(k.min));
    btop.push_back(static_cast<double>(k.top));
    btop_x.push_back(k.top_x);
  }
  f.bins = static_cast<int>(bx.size());
  if (f.bins < o.min_bins) {
    f.driver = "not enough history yet: samples in only " + std::to_string(f.bins) + " of " +
               std::to_string(nb) + " ranges of the " + span_text(span, by_step) + since + " (needs " +
               std::to_string(o.min_bins) + ")";
    return f;
  }
  const LineFit base = theil_sen(bx, bmin);
  const LineFit peak = theil_sen(btop_x, btop);
  // The step's own peak: each range's highest value above the baseline line at the same step.
  std::vector<double> excursion(bx.size());
  for (std::size_t i = 0; i < bx.size(); ++i) excursion[i] = std::max(0.0, btop[i] - base.at(btop_x[i]));
  const double e_point = quantile(excursion, 0.9), e_med = quantile(excursion, 0.5),
               e_max = *std::max_element(excursion.begin(), excursion.end());
  const double b_now = base.at(x_now);
  const double headroom = static_cast<double>(limit.bytes) - b_now;
  f.growth = base.slope;
  f.growth_lo = base.slope_lo;
  f.growth_hi = base.slope_hi;
  f.peak_growth = peak.slope;
  f.baseline = static_cast<std::int64_t>(std::llround(b_now));
  f.step_peak = static_cast<std::int64_t>(std::llround(e_point));
  f.headroom = static_cast<std::int64_t>(std::llround(headroom));
  if (by_step) f.seconds_per_step = std::max(0.0, theil_sen(bx, bt).slope);
  const std::string fitted = span_text(span, by_step) + since;
  const std::string label = figure_label(fig);
  auto rate = [&](double per) { return rate_text(per, by_step, fig == Field::Driver); };

  std::vector<Candidate> candidates;
  const double next_x = by_step ? x_now + 1 : x_now;
  if (e_point >= headroom) {
    candidates.push_back({ForecastDriver::StepPeak,
                          "step peak " + format_bytes(f.step_peak) + " > headroom " +
                              format_bytes(std::max<std::int64_t>(0, f.headroom)) +
                              ": the next step with a usual peak does not fit",
                          next_x, next_x, next_x});
  } else if (base.slope_lo > 0) {
    const bool steady = base.slope_lo >= 0.5 * base.slope;
    Candidate c{ForecastDriver::Growth,
                label + rate(base.slope) + " (" +
                    (steady ? std::string(fig == Field::Allocated ? "leak-like, " : "") + "steady for "
                            : std::string("growing unevenly over ")) +
                    fitted + ")",
                x_now + (headroom - e_point) / base.slope,
                x_now + std::max(0.0, headroom - e_max) / base.slope_hi,
                x_now + (headroom - e_med) / base.slope_lo};
    candidates.push_back(std::move(c));
  }
  // Peaks rising faster than the baseline: the step's own allocations grow (longer inputs).
  if (peak.points > 0 && peak.slope_lo > 0 && peak.slope_lo > std::max(0.0, base.slope_hi)) {
    const double top_now = peak.at(x_now);
    const double room = static_cast<double>(limit.bytes) - top_now;
    std::int64_t new_shapes = 0;
    const std::int64_t window_t0 = s[begin].t;
    const Shapes* first_shapes = nullptr;
    for (const Shapes& sh : r.shapes)
      if (sh.t >= window_t0) {
        first_shapes = &sh;
        break;
      }
    if (first_shapes && !r.shapes.empty()) new_shapes = r.shapes.back().distinct - first_shapes->distinct;
    const std::string peak_rate = rate(peak.slope);
    Candidate c;
    if (new_shapes > 0) {
      c.kind = ForecastDriver::Shapes;
      c.driver = "step peak " + peak_rate + " with the input shapes still rising (" +
                 format_thousands(new_shapes) + " new distinct shapes over the " + fitted + "; baseline " +
                 rate(base.slope) + ")";
    } else {
      c.kind = ForecastDriver::Growth;
      c.driver = "step peak " + peak_rate + " over the " + fitted + " (baseline " + rate(base.slope) + ")";
    }
    c.x = x_now + std::max(0.0, room) / peak.slope;
    c.early = x_now + std::max(0.0, room) / peak.slope_hi;
    c.late = x_now + std::max(0.0, room) / peak.slope_lo;
    candidates.push_back(std::move(c));
  }
  const auto best = std::min_element(candidates.begin(), candidates.end(),
                                     [](const Candidate& a, const Candidate& b) { return a.x < b.x; });
  if (best == candidates.end()) {
    f.state = ForecastState::NoOom;
    f.driver = "no OOM in sight: " + label + "baseline " + rate(base.slope) + " (95 % interval " +
               rate(base.slope_lo) + " to " + rate(base.slope_hi) + ") over the " + fitted + "; step peak " +
               format_bytes(f.step_peak) + " within headroom " + format_bytes(f.headroom);
    return f;
  }
  const double ahead = best->x - x_now;
  if (ahead > o.horizon * span) {
    f.state = ForecastState::NoOom;
    f.driver = "no OOM in sight: " + best->driver + " would reach the " + limit.name + " only " +
               (by_step ? "near step " + format_thousands(static_cast<std::int64_t>(std::ceil(best->x)))
                        : "in " + duration_text(ahead)) +
               ", more than " + format_thousands(static_cast<std::int64_t>(o.horizon)) + "x the " +
               span_text(span, by_step) + " fitted ahead";
    return f;
  }
  f.state = ForecastState::Oom;
  f.driver_kind = best->kind;
  f.driver = best->driver;
  const double early = std::clamp(best->early, next_x, best->x), late = std::max(best->late, best->x);
  if (by_step) {
    f.oom_at_step = static_cast<std::int64_t>(std::ceil(best->x));
    f.early_step = static_cast<std::int64_t>(std::ceil(early));
    f.late_step = static_cast<std::int64_t>(std::ceil(late));
    if (f.seconds_per_step > 0) {
      f.oom_in_seconds = (*f.oom_at_step - x_now) * f.seconds_per_step;
      f.early_seconds = (*f.early_step - x_now) * f.seconds_per_step;
      f.late_seconds = (*f.late_step - x_now) * f.seconds_per_step;
    }
  } else {
    f.oom_in_seconds = best->x - x_now;
    f.early_seconds = early - x_now;
    f.late_seconds = late - x_now;
  }
  return f;
}

std::string forecast_cell(const Forecast& f) {
  switch (f.state) {
    case ForecastState::Oom:
      if (f.oom_at_step) {
        std::string s = "step " + format_thousands(*f.oom_at_step);
        if (f.early_step && f.late_step &&
            (*f.early_step != *f.oom_at_step || *f.late_step != *f.oom_at_step))
          s += " (" + format_thousands(*f.early_step) + "-" + format_thousands(*f.late_step) + ")";
        return s;
      }
      return f.oom_in_seconds ? "in " + duration_text(*f.oom_in_seconds) : "soon";
    case ForecastState::NoOom:
      return "none in sight";
    case ForecastState::NotEnoughHistory:
      return "history too short";
    case ForecastState::NoLimit:
      return "no limit";
  }
  return "-";
}

std::string forecast_sentence(const Forecast& f) {
  std::string s;
  switch (f.state) {
    case ForecastState::Oom:
      s = "OOM forecast";
      if (f.oom_at_step)
        s += " at step " + format_thousands(*f.oom_at_step) + " (range " +
             format_thousands(f.early_step.value_or(0)) + " to " + format_thousands(f.late_step.value_or(0)) +
             ")";
      if (f.oom_in_seconds) s += ", in about " + duration_text(*f.oom_in_seconds);
      s += ": " + std::string(field_name(f.figure)) + " reaches the " + f.limit_name + " " +
           format_bytes(f.limit_bytes) + "; driver: " + f.driver;
      break;
    case ForecastState::NoOom:
    case ForecastState::NotEnoughHistory:
      s = f.driver;
      break;
    case ForecastState::NoLimit:
      s = "no forecast: " + f.driver;
      break;
  }
  return s + " [derived]";
}

}  // namespace oomscope::live
