"""The OOM forecast of one rank, in the agent: a line-by-line port of core/live/client/forecast.cpp (the
debugger's model, its defaults and its words), so that a trainer can act on the forecast itself
(`--checkpoint-before-oom`, guard.py). tests/live/test_forecast_port.py feeds the same series to both and
requires the same forecast. Every figure here is derived.

The limit, from the latest sample and the hello (the first that applies): driver vs the MPS recommended
maximum; device_used, reserved, then allocated vs the device total (the hello's total_bytes). The model:
the samples since the last restart (a `restart` event, the step counter going back, or a connection gap
after which the figure came back lower), at most `window_steps` steps of it, cut into up to `bins` equal
ranges; a Theil-Sen line through each range's lowest value (the baseline); the step's own peak as the 90th
percentile of each range's highest value above that line; the peaks' own line when they rise faster than
the baseline (named the shapes driver when new input shapes are still being reported). No forecast from
fewer than `min_steps` steps or `min_bins` ranges, none further ahead than `horizon` times the steps fitted.
"""

import math

from .forecast_result import Forecast
from .robust_fit import (
    duration_text,
    format_bytes,
    llround,
    quantile,
    rate_text,
    span_text,
    theil_sen,
    thousands,
)

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


class ForecastOptions:
    def __init__(
        self,
        window_steps=1000,
        min_steps=50,
        window_seconds=600.0,
        min_seconds=60.0,
        bins=40,
        min_bins=8,
        horizon=20.0,
    ):
        self.window_steps = window_steps  # fit over at most this many of the latest steps
        self.min_steps = min_steps  # and at least this many
        self.window_seconds = window_seconds  # the same for ranks without a step counter
        self.min_seconds = min_seconds
        self.bins = bins
        self.min_bins = min_bins
        self.horizon = horizon  # no forecast further ahead than this many times the span fitted


class RankSeries:
    """What the forecast reads of one rank: the hello's total_bytes, samples (dicts keyed by the protocol's
    field names, with "t" in unix ns), events as (t, kind), shapes lines as (t, distinct), and connection
    gaps as (from, to) in unix ns (to 0 while open)."""

    def __init__(self, total_bytes=0):
        self.total_bytes = int(total_bytes or 0)
        self.samples = []
        self.events = []
        self.shapes = []
        self.gaps = []


def _has(s, f):
    return s.get(f) is not None


def _choose_limit(r, s):
    capacity = r.total_bytes if r.total_bytes > 0 else 0
    if _has(s, "driver") and (s.get("recommended_max") or 0) > 0:
        return "driver", "recommended_max", int(s["recommended_max"])
    if capacity > 0:
        for f in ("device_used", "reserved", "allocated"):
            if _has(s, f):
                return f, "capacity", capacity
    return None


def _top_of(s, f):
    """The highest the figure went around this sample: allocator figures include the step's peak."""
    v = s[f]
    if f in ("allocated", "reserved") and _has(s, "peak_allocated"):
        v = max(v, s["peak_allocated"])
    return v


_LABELS = {"driver": "driver cache ", "device_used": "device memory ", "reserved": "reserved "}


def forecast_rank(r, o=None):
    """The forecast of RankSeries `r` as it stands at its latest sample (a Forecast)."""
    o = o or ForecastOptions()
    f = Forecast()
    s = r.samples
    if not s:
        f.driver = "no samples yet"
        return f
    last = s[-1]
    f.t = last["t"]
    limit = _choose_limit(r, last)
    if limit is None:
        f.state = "no_limit"
        f.driver = (
            "no limit known: the agent reports no device capacity (hello total_bytes) and no MPS recommended "
            "maximum"
        )
        return f
    fig, limit_name, limit_bytes = limit
    f.figure, f.limit_name, f.limit_bytes = limit
    by_step = f.by_step = _has(last, "step")
    f.at_step = last["step"] if by_step else -1
    t_last = last["t"]

    def x_of(a):
        return float(a["step"]) if by_step else (a["t"] - t_last) / 1e9

    x_now = x_of(last)
    window = float(o.window_steps) if by_step else o.window_seconds
    min_span = float(o.min_steps) if by_step else o.min_seconds

    # The current stretch of history: back from the latest sample to a restart, or to the window's start.
    restarts = [t for t, kind in r.events if kind == "restart"]

    def usable(a):
        return _has(a, fig) and (not by_step or _has(a, "step"))

    def came_back_lower(before, after):
        # After a gap, a new process shows as a figure below everything just before the gap.
        low, seen, k = INT64_MAX, 0, before + 1
        while k > 0 and seen < 32:
            k -= 1
            if usable(s[k]):
                low = min(low, s[k][fig])
                seen += 1
        return after[fig] < low - limit_bytes // 100

    begin = len(s) - 1
    nxt = last  # the sample after `i` that is kept
    for i in range(len(s) - 2, -1, -1):
        a = s[i]
        if not usable(a):
            continue
        if x_of(a) < x_now - window:
            break
        if by_step and a["step"] > nxt["step"]:
            f.since = "the step counter going back from %s to %s" % (
                thousands(a["step"]),
                thousands(nxt["step"]),
            )
            break
        if any(a["t"] < t <= nxt["t"] for t in restarts):
            f.since = "the restart at step " + thousands(a["step"]) if by_step else "the restart"
            break
        gap = any(g0 >= a["t"] and g0 < nxt["t"] and (g1 == 0 or g1 <= nxt["t"]) for g0, g1 in r.gaps)
        if gap and came_back_lower(i, nxt):
            f.since = (
                "the reconnection after step %s (the figure came back lower: a new process)"
                % thousands(a["step"])
                if by_step
                else "the reconnection (the figure came back lower: a new process)"
            )
            break
        begin = i
        nxt = a
    x_first = x_of(s[begin])
    span = x_now - x_first
    f.from_step = int(x_first) if by_step else 0
    f.to_step = int(x_now) if by_step else llround(span)
    since = " since " + f.since if f.since else ""
    if span < min_span:
        f.driver = "not enough history yet: %s%s (a forecast needs %s)" % (
            span_text(span, by_step),
            since,
            span_text(min_span, by_step),
        )
        return f

    # Ranges of steps (or seconds): the baseline is each range's lowest value, the peak its highest.
    nb = max(1, o.bins)
    width = span / nb
    count = [0] * nb
    x_sum = [0.0] * nb
    t_sum = [0.0] * nb
    lows = [INT64_MAX] * nb
    tops = [INT64_MIN] * nb
    top_x = [0.0] * nb
    for i in range(begin, len(s)):
        a = s[i]
        if not usable(a):
            continue
        x = x_of(a)
        b = min(max(int((x - x_first) / width), 0), nb - 1)
        count[b] += 1
        f.samples += 1
        x_sum[b] += x
        t_sum[b] += (a["t"] - t_last) / 1e9
        lows[b] = min(lows[b], a[fig])
        top = _top_of(a, fig)
        if top > tops[b]:
            tops[b], top_x[b] = top, x
    bx, bmin, btop, btop_x, bt = [], [], [], [], []
    for b in range(nb):
        if count[b] == 0:
            continue
        bx.append(x_sum[b] / count[b])
        bt.append(t_sum[b] / count[b])
        bmin.append(float(lows[b]))
        btop.append(float(tops[b]))
        btop_x.append(top_x[b])
    f.bins = len(bx)
    if f.bins < o.min_bins:
        f.driver = "not enough history yet: samples in only %d of %d ranges of the %s%s (needs %d)" % (
            f.bins,
            nb,
            span_text(span, by_step),
            since,
            o.min_bins,
        )
        return f
    base = theil_sen(bx, bmin)
    peak = theil_sen(btop_x, btop)
    # The step's own peak: each range's highest value above the baseline line at the same step.
    excursion = [max(0.0, btop[i] - base.at(btop_x[i])) for i in range(len(bx))]
    e_point, e_med, e_max = quantile(excursion, 0.9), quantile(excursion, 0.5), max(excursion)
    b_now = base.at(x_now)
    headroom = float(limit_bytes) - b_now
    f.growth, f.growth_lo, f.growth_hi, f.peak_growth = base.slope, base.slope_lo, base.slope_hi, peak.slope
    f.baseline = llround(b_now)
    f.step_peak = llround(e_point)
    f.headroom = llround(headroom)
    if by_step:
        f.seconds_per_step = max(0.0, theil_sen(bx, bt).slope)
    fitted = span_text(span, by_step) + since
    label = _LABELS.get(fig, "")

    def rate(per):
        return rate_text(per, by_step, fig == "driver")

    candidates = []  # (x, early, late, kind, driver)
    next_x = x_now + 1 if by_step else x_now
    if e_point >= headroom:
        text = "step peak %s > headroom %s: the next step with a usual peak does not fit" % (
            format_bytes(f.step_peak),
            format_bytes(max(0, f.headroom)),
        )
        candidates.append((next_x, next_x, next_x, "step_peak", text))
    elif base.slope_lo > 0:
        steady = base.slope_lo >= 0.5 * base.slope
        how = (
            (("leak-like, " if fig == "allocated" else "") + "steady for ")
            if steady
            else "growing unevenly over "
        )
        candidates.append(
            (
                x_now + (headroom - e_point) / base.slope,
                x_now + max(0.0, headroom - e_max) / base.slope_hi,
                x_now + (headroom - e_med) / base.slope_lo,
                "growth",
                label + rate(base.slope) + " (" + how + fitted + ")",
            )
        )
    # Peaks rising faster than the baseline: the step's own allocations grow (longer inputs).
    if peak.points > 0 and peak.slope_lo > 0 and peak.slope_lo > max(0.0, base.slope_hi):
        room = max(0.0, float(limit_bytes) - peak.at(x_now))
        window_t0 = s[begin]["t"]
        first = next((d for t, d in r.shapes if t >= window_t0), None)
        new_shapes = r.shapes[-1][1] - first if first is not None else 0
        if new_shapes > 0:
            kind = "shapes"
            text = (
                "step peak %s with the input shapes still rising "
                "(%s new distinct shapes over the %s; baseline %s)"
                % (
                    rate(peak.slope),
                    thousands(new_shapes),
                    fitted,
                    rate(base.slope),
                )
            )
        else:
            kind = "growth"
            text = "step peak %s over the %s (baseline %s)" % (rate(peak.slope), fitted, rate(base.slope))
        candidates.append(
            (
                x_now + room / peak.slope,
                x_now + room / peak.slope_hi,
                x_now + room / peak.slope_lo,
                kind,
                text,
            )
        )
    if not candidates:
        f.state = "no_oom"
        f.driver = (
            "no OOM in sight: %sbaseline %s (95 %% interval %s to %s) over the %s; "
            "step peak %s within headroom %s"
            % (
                label,
                rate(base.slope),
                rate(base.slope_lo),
                rate(base.slope_hi),
                fitted,
                format_bytes(f.step_peak),
                format_bytes(f.headroom),
            )
        )
        return f
    best = candidates[0]
    for c in candidates[1:]:
        if c[0] < best[0]:
            best = c
    bx_, b_early, b_late, kind, text = best
    ahead = bx_ - x_now
    if ahead > o.horizon * span:
        where = "near step " + thousands(math.ceil(bx_)) if by_step else "in " + duration_text(ahead)
        f.state = "no_oom"
        f.driver = "no OOM in sight: %s would reach the %s only %s, more than %sx the %s fitted ahead" % (
            text,
            limit_name,
            where,
            thousands(int(o.horizon)),
            span_text(span, by_step),
        )
        return f
    f.state = "oom"
    f.driver_kind = kind
    f.driver = text
    early = next_x if b_early < next_x else (bx_ if bx_ < b_early else b_early)  # std::clamp
    late = max(b_late, bx_)
    if by_step:
        f.oom_at_step = math.ceil(bx_)
        f.early_step = math.ceil(early)
        f.late_step = math.ceil(late)
        if f.seconds_per_step > 0:
            f.oom_in_seconds = (f.oom_at_step - x_now) * f.seconds_per_step
            f.early_seconds = (f.early_step - x_now) * f.seconds_per_step
            f.late_seconds = (f.late_step - x_now) * f.seconds_per_step
    else:
        f.oom_in_seconds = bx_ - x_now
        f.early_seconds = early - x_now
        f.late_seconds = late - x_now
    return f
