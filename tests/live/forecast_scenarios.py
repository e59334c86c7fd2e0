"""Synthetic ranks for the forecast cross-check (test_forecast_port.py): each scenario is the ordered list
of what one rank's agent sent, as records ("hello", obj), ("sample", dict), ("event", obj),
("shapes", obj), ("disconnected", t, reason), ("connected", t). Figures come from a seeded generator, so
both forecasts see noise, spikes and restarts, never a series shaped to give round results."""

import random

T0 = 1_700_000_000_000_000_000
MIB = 1 << 20
GIB = 1 << 30


def _hello(total, backend="cuda"):
    return (
        "hello",
        {
            "type": "hello",
            "protocol": 1,
            "pid": 4242,
            "host": "node",
            "rank": 0,
            "world_size": 1,
            "backend": backend,
            "device": "synthetic",
            "total_bytes": total,
            "framework": "test",
            "command": ["train.py"],
        },
    )


def _run(seed, steps, figure, per_sample=2, dt=0.25, step0=1, t0=T0, **kw):
    """Samples every `dt` seconds, `per_sample` samples a step; figure(step, rng) -> dict of fields."""
    rng = random.Random(seed)
    out = []
    n = 0
    for step in range(step0, step0 + steps):
        for k in range(per_sample):
            s = {"type": "sample", "t": t0 + int(n * dt * 1e9)}
            if kw.get("with_step", True):
                s["step"] = step
            s.update(figure(step, k, rng))
            out.append(("sample", s))
            n += 1
    return out


def leak():
    def fig(step, k, rng):
        base = GIB + step * 12 * MIB + rng.randint(0, 4 * MIB)
        peak = base + int(rng.uniform(300, 700) * MIB)
        if step in (120, 121):  # a checkpoint spike
            base += 2 * GIB
        return {"allocated": base, "peak_allocated": peak if k else base}

    return [_hello(16 * GIB)] + _run(1, 700, fig)


def no_leak():
    def fig(step, k, rng):
        base = 3 * GIB + rng.randint(0, 64 * MIB)
        return {"allocated": base, "reserved": base + 512 * MIB, "peak_allocated": base + rng.randint(0, GIB)}

    return [_hello(16 * GIB)] + _run(2, 400, fig)


def step_peak():
    def fig(step, k, rng):
        base = 14 * GIB + rng.randint(0, 32 * MIB)
        return {"allocated": base, "peak_allocated": base + int(rng.uniform(1.6, 2.4) * GIB)}

    return [_hello(16 * GIB)] + _run(3, 200, fig)


def shapes():
    recs = [_hello(24 * GIB)]
    rng = random.Random(4)
    distinct = 0
    samples = []

    def fig(step, k, r):
        return {
            "allocated": 4 * GIB + r.randint(0, 16 * MIB),
            "peak_allocated": 4 * GIB + step * 20 * MIB + r.randint(0, 200 * MIB),
        }

    samples = _run(5, 500, fig)
    for i, rec in enumerate(samples):
        if i % 10 == 0 and rng.random() < 0.8:
            distinct += 1
            recs.append(
                (
                    "shapes",
                    {
                        "type": "shapes",
                        "t": rec[1]["t"] - 1,
                        "distinct": distinct,
                        "last": [8, 128 + distinct],
                    },
                )
            )
        recs.append(rec)
    return recs


def mps_driver():
    def fig(step, k, rng):
        return {
            "allocated": 6 * GIB + rng.randint(0, 64 * MIB),
            "driver": 8 * GIB + step * 3 * MIB + rng.randint(0, 8 * MIB),
            "recommended_max": 21 * GIB,
        }

    return [_hello(0, "mps")] + _run(6, 900, fig, per_sample=1, dt=0.5)


def by_seconds():
    def fig(step, k, rng):
        return {"device_used": 10 * GIB + step * 40 * MIB + rng.randint(0, 50 * MIB)}

    return [_hello(40 * GIB)] + _run(7, 600, fig, per_sample=1, dt=0.5, with_step=False)


def restarted():
    def fig(step, k, rng):
        return {"allocated": 2 * GIB + (step % 1000) * 8 * MIB + rng.randint(0, 2 * MIB)}

    first = _run(8, 300, fig)
    t = first[-1][1]["t"] + int(0.25e9)
    restart = ("event", {"type": "event", "t": t, "kind": "restart", "message": "resumed", "step": 300})
    second = _run(9, 400, lambda s, k, r: {"allocated": 2 * GIB + s * 9 * MIB}, step0=301, t0=t + 1)
    # Then the step counter goes back (a new run in the same process).
    t2 = second[-1][1]["t"] + int(0.25e9)
    third = _run(10, 300, fig, step0=1, t0=t2)
    return [_hello(12 * GIB)] + first + [restart] + second + third


def new_process():
    def fig(step, k, rng):
        return {"reserved": 5 * GIB + step * 6 * MIB + rng.randint(0, 4 * MIB), "allocated": 4 * GIB}

    first = _run(11, 400, fig)
    t = first[-1][1]["t"]
    gap = [("disconnected", t + int(0.1e9), "connection reset"), ("connected", t + int(3e9))]
    second = _run(12, 300, lambda s, k, r: {"reserved": GIB + s * 5 * MIB, "allocated": GIB}, step0=401,
                  t0=t + int(3.2e9))  # fmt: skip
    return [_hello(20 * GIB)] + first + gap + second


def no_limit():
    return [_hello(0, "cpu")] + _run(13, 100, lambda s, k, r: {"allocated": s * MIB})


SCENARIOS = [leak, no_leak, step_peak, shapes, mps_driver, by_seconds, restarted, new_process, no_limit]
