"""The OOM forecast on a real torch run under the Python agent: tests/live/torch_leak_loop.py (an MLP on the
CPU, torch as installed, batches of varying size) keeps part of each step's activations alive until its own
budget check raises its OOM at a step nobody chose. `oomscope-cli watch --json` attached to the agent must,
at one third and at two thirds of the run, forecast that step within 15 %; a run without the leak must give
"no OOM in sight" and never forecast one; a run whose batches keep getting longer must name the shapes
driver. Then the same leaking run with the agent's `on_forecast_oom` callback (the forecast ported to the
agent): it checkpoints and drops what leaked before the forecast OOM, and goes on past it without an OOM.
Skipped when no Python here imports torch.

usage: test_python_forecast_torch.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, SKIP, check, lines, torch_python  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGET = 12 << 20
LEAK = 32 << 10


def run(cli, python, tmp, name, args):
    """Runs the loop under a watch; returns (watch's JSON lines, the loop's output, its exit code)."""
    go = os.path.join(tmp, name + ".go")
    out_path = os.path.join(tmp, name + ".json")
    env = dict(os.environ, PYTHONPATH=AGENT_PATH)
    loop = subprocess.Popen(
        [python, os.path.join(HERE, "torch_leak_loop.py"), "--budget", str(BUDGET), "--go", go] + args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    ep = loop.stdout.readline().strip()
    check(ep.startswith("127.0.0.1:"), "%s: the agent serves (%s)" % (name, ep))
    with open(out_path, "w") as f:
        watch = subprocess.Popen([cli, "watch", ep, "--json", "--interval", "50"], stdout=f)
        deadline = time.time() + 60
        while time.time() < deadline and '"sample"' not in open(out_path).read():
            time.sleep(0.1)
        open(go, "w").close()
        try:
            log = loop.communicate(timeout=400)[0]
        except subprocess.TimeoutExpired:
            loop.kill()
            log = loop.communicate()[0]
        time.sleep(0.5)
        watch.terminate()
        watch.wait(timeout=30)
    with open(os.path.join(tmp, name + ".log"), "w") as f:
        f.write(log)
    return lines(out_path), log, loop.returncode


def forecasts(got):
    return [x["forecast"] for x in got if x["type"] == "forecast" and x["rank"] == 0]


def within(f, step):
    return (
        f["state"] == "oom" and f["oom_at_step"] is not None and abs(f["oom_at_step"] - step) <= 0.15 * step
    )


def main():
    cli = sys.argv[1]
    python = torch_python()
    if python is None:
        print("SKIP: no Python here imports torch (Debian: apt-get install python3-torch)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-py-forecast-")
    started = time.time()

    # 1. The leak: the loop's own OOM, and the forecast before it.
    got, log, code = run(cli, python, tmp, "leak", ["--leak", str(LEAK)])
    ooms = [x for x in got if x["type"] == "event" and x["kind"] == "oom" and x.get("step") is not None]
    check(
        code == 3 and ooms, "the leaking loop ran out of its budget by itself (exit %d; see %s)" % (code, tmp)
    )
    real = ooms[0]["step"]
    print("real OOM at step %d: %s" % (real, ooms[0]["message"]))
    fc = forecasts(got)
    check(len(fc) >= 5, "forecast lines were printed (%d)" % len(fc))
    for frac, label in ((1 / 3, "one third"), (2 / 3, "two thirds")):
        at = [f for f in fc if f["at_step"] is not None and f["at_step"] >= frac * real]
        check(at, "a forecast at %s of the run" % label)
        f = at[0]
        print(
            "at step %d (%s): %s, step %s, driver: %s"
            % (f["at_step"], label, f["state"], f["oom_at_step"], f["driver"])
        )
        check(
            within(f, real),
            "the forecast at %s of the run (step %d) names step %s, within 15 %% of the real OOM at step %d"
            % (label, f["at_step"], f["oom_at_step"], real),
        )
        check(
            f["limit"]["figure"] == "allocated" and f["limit"]["bytes"] == BUDGET and f["tag"] == "derived",
            "allocated vs the loop's budget, tagged derived",
        )
    before = [f for f in fc if f["at_step"] is not None and f["at_step"] < real]
    first = next((f for f in before if within(f, real)), None)
    stayed = all(within(f, real) for f in before if f["at_step"] >= first["at_step"])
    print(
        "FIGURE: torch CPU leak: the forecast first named step %d (real OOM at step %d) at step %d, %d steps "
        "before it; it %s within 15 %% until the OOM"
        % (
            first["oom_at_step"],
            real,
            first["at_step"],
            real - first["at_step"],
            "stayed" if stayed else "did not stay",
        )
    )

    # 2. No leak: no OOM, never forecast one.
    got, log, code = run(cli, python, tmp, "noleak", ["--steps", "300"])
    check(code == 0, "the loop without a leak never ran out (exit %d)" % code)
    fc = forecasts(got)
    check(
        fc and fc[-1]["state"] == "no_oom",
        "the last forecast is 'no OOM in sight': %s" % (fc[-1]["driver"] if fc else "none"),
    )
    wolf = [f for f in fc if f["state"] == "oom"]
    print("FIGURE: torch CPU without a leak: %d of %d forecasts named an OOM" % (len(wolf), len(fc)))
    check(not wolf, "no forecast cried wolf: %s" % [f["driver"] for f in wolf[:3]])

    # 3. Rising shapes: the shapes driver.
    got, log, code = run(cli, python, tmp, "rising", ["--rising", "--steps", "260"])
    fc = forecasts(got)
    kinds = [f["driver_kind"] for f in fc if f["state"] == "oom"]
    check(
        kinds and kinds[-1] == "shapes",
        "the rising shapes are named the driver: %s" % (fc[-1]["driver"] if fc else "none"),
    )
    print("rising shapes: %s" % fc[-1]["driver"])

    # 4. The agent's own forecast calls the loop's checkpoint callback before the OOM.
    ckpt = os.path.join(tmp, "model.pt")
    steps = int(real * 1.6)
    got, log, code = run(
        cli,
        python,
        tmp,
        "guarded",
        ["--leak", str(LEAK), "--guard", "40", "--checkpoint", ckpt, "--steps", str(steps)],
    )
    events = [x for x in got if x["type"] == "event"]
    fired = [e for e in events if e["kind"] == "checkpoint_before_oom"]
    restarts = [e for e in events if e["kind"] == "restart"]
    ooms = [e for e in events if e["kind"] == "oom"]
    check(fired, "the agent's forecast called the checkpoint callback (see %s/guarded.log)" % tmp)
    print("callback at step %s: %s" % (fired[0].get("step"), fired[0]["message"]))
    check(
        "within 40 steps (OOM forecast at step " in fired[0]["message"]
        and "[derived]" in fired[0]["message"],
        "its event names the forecast",
    )
    check(
        restarts and restarts[0]["t"] >= fired[0]["t"], "a restart event follows (the callback returned True)"
    )
    check(os.path.exists(ckpt), "the callback saved the model with torch.save")
    # After the restart the leak starts again from nothing: its next OOM lies past the run's end.
    check(
        len(fired) == 1,
        "the callback ran once (%d time(s)): the forecast before the restart is dropped" % len(fired),
    )
    check(
        code == 0 and not ooms and ("done: %d steps" % steps) in log,
        "the run went on to step %d without an OOM (exit %d)" % (steps, code),
    )
    print(
        "FIGURE: torch CPU leak with the callback: %d callback(s), %d steps, no OOM "
        "(unguarded OOM at step %d)" % (len(fired), steps, real)
    )
    print("took %.1f s" % (time.time() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
