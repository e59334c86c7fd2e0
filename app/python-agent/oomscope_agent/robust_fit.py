"""Robust straight-line fits and the text helpers of the OOM forecast (forecast.py), ported line by line
from core/live/client/robust_fit.cpp and the helpers of core/live/client/forecast.cpp and
core/util/bytes.cpp, so that the agent's forecast gives the debugger's figures and words exactly
(tests/live/test_forecast_port.py feeds both the same series).

theil_sen(): the median of the slopes of all pairs of points, with Sen's 95 % interval for the slope; a
few outliers (a checkpoint spike, an evaluation pass) move neither the slope nor the intercept.
"""

import math


class LineFit:
    __slots__ = ("points", "slope", "intercept", "slope_lo", "slope_hi")

    def __init__(self):
        self.points = 0  # 0: no fit (fewer than two points with distinct x)
        self.slope = 0.0
        self.intercept = 0.0
        self.slope_lo = 0.0
        self.slope_hi = 0.0

    def at(self, x):
        return self.intercept + self.slope * x


def quantile(v, q):
    """The q-quantile (0..1) of v, by linear interpolation between order statistics; 0 for an empty v."""
    if not v:
        return 0.0
    v = sorted(v)
    pos = min(max(q, 0.0), 1.0) * float(len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - float(lo))


def theil_sen(x, y):
    fit = LineFit()
    n = min(len(x), len(y))
    slopes = []
    for i in range(n):
        xi, yi = x[i], y[i]
        for j in range(i + 1, n):
            if x[j] != xi:
                slopes.append((y[j] - yi) / (x[j] - xi))
    if not slopes:
        return fit
    slopes.sort()
    m = float(len(slopes))

    def at_rank(r):  # r: 1-based rank, clamped and interpolated
        r = min(max(r, 1.0), m)
        lo = int(math.floor(r)) - 1
        hi = min(lo + 1, len(slopes) - 1)
        return slopes[lo] + (slopes[hi] - slopes[lo]) * (r - math.floor(r))

    fit.slope = at_rank((m + 1) / 2)
    # Sen (1968): C = z * sqrt(n (n - 1) (2n + 5) / 18); the interval is the slopes of rank (M - C) / 2
    # and (M + C) / 2 + 1.
    dn = float(n)
    c = 1.96 * math.sqrt(dn * (dn - 1) * (2 * dn + 5) / 18)
    fit.slope_lo = at_rank((m - c) / 2)
    fit.slope_hi = at_rank((m + c) / 2 + 1)
    fit.intercept = quantile([y[i] - fit.slope * x[i] for i in range(n)], 0.5)
    fit.points = n
    return fit


def llround(v):
    """C's llround: the nearest integer, halves away from zero (Python's round() rounds them to even)."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def format_bytes(b):
    """ "3.72 GiB", "104 MiB", "512 B": binary units with three significant figures (core/util/bytes.cpp)."""
    b = int(b)
    sign = "-" if b < 0 else ""
    magnitude = float(-b if b < 0 else b)
    if magnitude < 1024.0:
        return sign + str(int(magnitude)) + " B"
    units = ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    value = magnitude / 1024.0
    unit = 0
    while value >= 1023.5 and unit < 5:
        value /= 1024.0
        unit += 1
    if value >= 99.95:
        text = "%.0f %s" % (value, units[unit])
    elif value >= 9.995:
        text = "%.1f %s" % (value, units[unit])
    else:
        text = "%.2f %s" % (value, units[unit])
    return sign + text


def thousands(v):
    v = int(v)
    return ("-" if v < 0 else "") + "{:,}".format(abs(v))


def signed_bytes(b):
    v = llround(b)
    return ("-" if v < 0 else "+") + format_bytes(-v if v < 0 else v)


def rate_text(per, by_step, per_thousand):
    """ "+12.4 MiB per step", "+3.1 GiB per 1,000 steps", "+40 MiB per minute"; the driver cache is given
    per 1,000 steps, as the MPS reference counts its restarts."""
    if not by_step:
        return signed_bytes(per * 60) + " per minute"
    if abs(per) >= 1024.0 * 1024.0 and not per_thousand:
        return signed_bytes(per) + " per step"
    return signed_bytes(per * 1000) + " per 1,000 steps"


def span_text(span, by_step):
    return thousands(llround(span)) + (" steps" if by_step else " s")


def duration_text(s):
    if s < 10:
        return "%.1f s" % s
    if s < 90:
        return "%.0f s" % s
    if s < 90 * 60:
        return "%.1f min" % (s / 60)
    if s < 48 * 3600:
        return "%.1f h" % (s / 3600)
    return "%.1f d" % (s / 86400)
