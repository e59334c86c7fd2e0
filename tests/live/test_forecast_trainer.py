"""The OOM forecast on a real run: `oomscope-demo-trainer --leak-per-step` (LibTorch on the CPU, under
`--budget`) keeps part of every step's tensors alive until an attempt's allocation is refused with the
trainer's own c10::OutOfMemoryError (its `oom` event, with the step). `oomscope-cli watch --json` attached
to it must, at one third and at two thirds of the run, forecast that step within 15 %; the same run
without the leak must give "no OOM in sight" and never forecast one. Prints how many steps before the
real OOM the forecast first named its step, and the replay of the recording must say the same.

usage: test_forecast_trainer.py OOMSCOPE_CLI [OOMSCOPE_DEMO_TRAINER]   (skipped without the trainer)
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check, lines  # noqa: E402

# Scenes of 2,000 to 3,200 points (about 2.8 MiB at the most), one a step, reshuffled every epoch: the
# step's own peak varies with the scene, so the OOM comes at a step whose scene no longer fits on top of
# what leaked, not at a step anyone set (about 240 steps of 50-100 ms here).
SIZES = [2500, 2000, 3200, 2750, 2250, 3000, 2300, 2850]
BUDGET = "12MiB"
LEAK = "40KiB"


def watch_run(cli, trainer, tmp, name, trainer_args, stop_after_oom):
    sock = os.path.join(tmp, name + ".sock")
    out = os.path.join(tmp, name + ".json")
    rec = os.path.join(tmp, name + ".oomlive")
    sizes = os.path.join(tmp, "sizes.txt")
    with open(sizes, "w") as f:
        f.write("\n".join(str(s) for s in SIZES) + "\n")
    with open(out, "w") as f:
        # The trainer first, the watch once its socket is there: the watch then connects at its first try
        # (its retries back off to 2 s, which would lose the run's first steps; an agent sends no history).
        log = open(os.path.join(tmp, name + ".log"), "w")
        proc = subprocess.Popen(
            [
                trainer,
                "--sizes",
                sizes,
                "--batch",
                "1",
                "--epochs",
                "200",
                "--budget",
                BUDGET,
                "--quiet",
                "--serve",
                "unix:" + sock,
                *trainer_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_until = time.time() + 30
        while not os.path.exists(sock) and proc.poll() is None and time.time() < wait_until:
            time.sleep(0.01)
        watch = subprocess.Popen(
            [cli, "watch", "unix:" + sock, "--json", "--interval", "10", "--record", rec], stdout=f
        )
        deadline = time.time() + 120
        oom_seen = None
        while proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
            if stop_after_oom and oom_seen is None:
                with open(out) as g:
                    if '"kind":"oom"' in g.read():
                        oom_seen = time.time()
            if oom_seen is not None and time.time() - oom_seen > 1.0:
                proc.terminate()
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        time.sleep(0.5)
        watch.terminate()
        watch.wait(timeout=30)
    return lines(out), rec


def forecasts(got):
    return [x["forecast"] for x in got if x["type"] == "forecast" and x["rank"] == 0]


def within(f, step):
    return (
        f["state"] == "oom" and f["oom_at_step"] is not None and abs(f["oom_at_step"] - step) <= 0.15 * step
    )


def main():
    cli = sys.argv[1]
    trainer = sys.argv[2] if len(sys.argv) > 2 else ""
    if not trainer or not os.path.exists(trainer):
        print("SKIP: oomscope-demo-trainer was not built (no LibTorch)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-forecast-")
    started = time.time()

    # 1. The leak: the run's own OOM, and the forecast before it.
    got, rec = watch_run(cli, trainer, tmp, "leak", ["--leak-per-step", LEAK], True)
    ooms = [x for x in got if x["type"] == "event" and x["kind"] == "oom" and x.get("step") is not None]
    check(ooms, "the leaking run ran out of memory by itself (see %s/leak.log)" % tmp)
    real = ooms[0]["step"]
    fc = forecasts(got)
    # One forecast a second of the run: 4 where a step takes 15 ms (about 3.5 s to the OOM), about 8 at 30 ms,
    # more under load. The checks below need one at each third of the run; the first has no step yet.
    check(len(fc) >= 3, "forecast lines were printed (%d)" % len(fc))
    print("real OOM at step %d: %s" % (real, ooms[0]["message"]))
    for frac, label in ((1 / 3, "one third"), (2 / 3, "two thirds")):
        at = [f for f in fc if f["at_step"] is not None and f["at_step"] >= frac * real]
        check(at, "a forecast at %s of the run" % label)
        f = at[0]
        print(
            "at step %d (%s): %s, step %s (range %s), driver: %s"
            % (
                f["at_step"],
                label,
                f["state"],
                f["oom_at_step"],
                f.get("range", {}).get("steps"),
                f["driver"],
            )
        )
        check(
            within(f, real),
            "the forecast at %s of the run (step %d) names step %s, within 15 %% of the real "
            "OOM at step %d" % (label, f["at_step"], f["oom_at_step"], real),
        )
        check(
            f["tag"] == "derived"
            and f["limit"]["figure"] == "allocated"
            and f["limit"]["name"] == "capacity",
            "tagged derived, allocated vs the capacity (the budget)",
        )
    before = [f for f in fc if f["at_step"] is not None and f["at_step"] < real]
    first = next((f for f in before if within(f, real)), None)
    check(first is not None, "some forecast named the step")
    stayed = all(within(f, real) for f in before if f["at_step"] >= first["at_step"])
    print(
        "FIGURE: the forecast first named step %d (within 15 %% of the real OOM at step %d) at step %d, "
        "%d steps before it; it %s within 15 %% until the OOM"
        % (
            first["oom_at_step"],
            real,
            first["at_step"],
            real - first["at_step"],
            "stayed" if stayed else "did not stay",
        )
    )
    rep = subprocess.run([cli, "replay", rec], capture_output=True, text=True, timeout=120)
    want = "first named within 15 % at step " + str(first["at_step"])
    check(
        rep.returncode == 0 and want in rep.stdout,
        "the replay gives the same lead (%s):\n%s" % (want, rep.stdout[-1500:]),
    )

    # 2. No leak: the same run, no OOM forecast at any point.
    got, _ = watch_run(cli, trainer, tmp, "noleak", ["--steps", "120"], False)
    check(
        not [x for x in got if x["type"] == "event" and x["kind"] == "oom"],
        "the run without a leak never ran out",
    )
    fc = forecasts(got)
    check(
        fc and fc[-1]["state"] == "no_oom",
        "the last forecast is 'no OOM in sight': %s" % (fc[-1]["driver"] if fc else "none"),
    )
    wolf = [f for f in fc if f["state"] == "oom"]
    print(
        "FIGURE: without a leak, %d of %d forecasts named an OOM (last: %s)"
        % (len(wolf), len(fc), fc[-1]["driver"])
    )
    check(
        not wolf, "no forecast cried wolf on the run that never ran out: %s" % [f["driver"] for f in wolf[:3]]
    )
    print("took %.1f s" % (time.time() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
