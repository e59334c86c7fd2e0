"""The agent's Python forecast (oomscope_agent/forecast.py) against the debugger's C++ one
(core/live/client/forecast.cpp): the synthetic ranks of forecast_scenarios.py (a leak with a checkpoint
spike, no leak, a step peak over the headroom, rising shapes, the MPS driver cache, a rank without a step
counter, a restart event and a step counter going back, a new process after a gap, no limit) are written
as one recording, replayed with `oomscope-cli replay --json`, and at every point where the C++ side made a
forecast the Python side forecasts over the same records: the state, the driver (kind and words), the limit,
the forecast step and its range must be the same, the times and figures within 1e-9.

usage: test_forecast_port.py OOMSCOPE_CLI
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, check  # noqa: E402
from forecast_scenarios import SCENARIOS  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools"))
from recording_writer import RecordingWriter  # noqa: E402

sys.path.insert(0, AGENT_PATH)
from oomscope_agent.forecast import RankSeries, forecast_rank  # noqa: E402


# What each scenario must give at some point (so that the comparison covers every branch of the model):
# the set of states (and OOM driver kinds) seen, and a phrase some forecast's driver says.
EXPECT = {
    "leak": ({"not_enough_history", "no_oom", "oom/growth"}, "leak-like, steady for"),
    "no_leak": ({"not_enough_history", "no_oom"}, "no OOM in sight: reserved baseline"),
    "step_peak": ({"not_enough_history", "oom/step_peak"}, "the next step with a usual peak does not fit"),
    "shapes": ({"not_enough_history", "oom/shapes"}, "with the input shapes still rising"),
    "mps_driver": ({"not_enough_history", "no_oom", "oom/growth"}, "driver cache +"),
    "by_seconds": ({"not_enough_history", "oom/growth"}, "device memory +"),
    "restarted": ({"not_enough_history", "no_oom", "oom/growth"}, "since the restart at step 300"),
    "new_process": (
        {"not_enough_history", "no_oom", "oom/growth"},
        "the figure came back lower: a new process",
    ),
    "no_limit": ({"no_limit"}, "no limit known"),
}


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def differences(c, p):
    """What differs between the C++ forecast object `c` (JSON) and the Python one `p` (its JSON)."""
    out = []
    for key in ("state", "driver_kind", "driver", "oom_at_step", "at_step", "t", "limit"):
        if c.get(key) != p.get(key):
            out.append("%s: C++ %r, Python %r" % (key, c.get(key), p.get(key)))
    if c.get("state") == "oom" and c["range"]["steps"] != p["range"]["steps"]:
        out.append("range: C++ %r, Python %r" % (c["range"]["steps"], p["range"]["steps"]))
    if not close(c.get("oom_in_seconds"), p.get("oom_in_seconds")):
        out.append("oom_in_seconds: C++ %r, Python %r" % (c.get("oom_in_seconds"), p.get("oom_in_seconds")))
    return out


def basis_differences(c, pf):
    b = c["basis"]
    out = []
    if b.get("bins", 0) != pf.bins or b.get("samples") != pf.samples:
        out.append(
            "bins/samples: C++ %r/%r, Python %r/%r" % (b.get("bins"), b.get("samples"), pf.bins, pf.samples)
        )
    if b.get("bins", 0) > 0:
        for key, mine in (("baseline", pf.baseline), ("step_peak", pf.step_peak), ("headroom", pf.headroom)):
            if b.get(key) != mine:
                out.append("%s: C++ %r, Python %r" % (key, b.get(key), mine))
        growth = b.get("growth_per_step", b.get("growth_per_second"))
        if not close(growth, pf.growth):
            out.append("growth: C++ %r, Python %r" % (growth, pf.growth))
    return out


def main():
    cli = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="oomscope-forecast-port-")
    rec_path = os.path.join(tmp, "synthetic.oomlive")
    scenarios = [(fn.__name__, fn()) for fn in SCENARIOS]
    w = RecordingWriter(rec_path)
    for rank, (name, records) in enumerate(scenarios):
        w.endpoint(rank, "synthetic:" + name)
        w.connected(rank, records[1][1]["t"] - 1)
        for r in records:
            if r[0] == "sample":
                w.sample(rank, r[1])
            elif r[0] in ("hello", "event", "shapes"):
                w.line(rank, r[1])
            elif r[0] == "disconnected":
                w.disconnected(rank, r[1], r[2])
            elif r[0] == "connected":
                w.connected(rank, r[1])
    w.close()
    rep = subprocess.run([cli, "replay", rec_path, "--json"], capture_output=True, text=True, timeout=300)
    check(rep.returncode == 0, "replay of the synthetic recording ran (%s)" % rep.stderr.strip()[-300:])
    made = {}  # rank -> {t: forecast object}
    for line in rep.stdout.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "forecast":
            made.setdefault(obj["rank"], {})[obj["forecast"]["t"]] = obj["forecast"]
    total = 0
    for rank, (name, records) in enumerate(scenarios):
        want = made.get(rank, {})
        check(len(want) >= 20, "%s: the C++ side made forecasts (%d)" % (name, len(want)))
        series = RankSeries()
        connected = True
        compared = 0
        seen = {}  # state/driver kind -> the first driver text of that kind
        words = set()
        for r in records:
            kind = r[0]
            if kind == "hello":
                series.total_bytes = r[1]["total_bytes"]
            elif kind == "event":
                series.events.append((r[1]["t"], r[1]["kind"]))
            elif kind == "shapes":
                series.shapes.append((r[1]["t"], r[1]["distinct"]))
            elif kind == "disconnected":
                if connected and series.samples and (not series.gaps or series.gaps[-1][1] != 0):
                    series.gaps.append([series.samples[-1]["t"], 0])
                connected = False
            elif kind == "connected":
                connected = True
            elif kind == "sample":
                s = dict(r[1])
                if series.gaps and series.gaps[-1][1] == 0:
                    series.gaps[-1][1] = s["t"]
                series.samples.append(s)
                c = want.get(s["t"])
                if c is None:
                    continue
                pf = forecast_rank(series)
                diff = differences(c, pf.to_json()) + basis_differences(c, pf)
                if diff:
                    raise SystemExit(
                        "FAILED: %s, step %s (t %d): the forecasts differ\n  %s"
                        % (name, c.get("at_step"), c["t"], "\n  ".join(diff))
                    )
                compared += 1
                key = c["state"] + ("/" + c["driver_kind"] if c["state"] == "oom" else "")
                seen.setdefault(key, c["driver"])
                words.add(c["driver"])
        check(compared == len(want), "%s: all %d forecasts compared" % (name, len(want)))
        kinds, phrase = EXPECT[name]
        check(
            set(seen) == set(kinds) and any(phrase in w for w in words),
            "%s: the forecasts were %s, as the scenario means, and one says %r"
            % (name, ", ".join(sorted(kinds)), phrase),
        )
        total += compared
        print("%s: %d forecasts the same on both sides (%s)" % (name, compared, ", ".join(sorted(seen))))
        for k in sorted(seen):
            print("    %s: %s" % (k, seen[k]))
    print(
        "FIGURE: %d forecasts over %d synthetic ranks, the Python port the same as the C++ model"
        % (total, len(scenarios))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
