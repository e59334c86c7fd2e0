"""The Python agent's --checkpoint-before-oom through the drop-in wrapper, without a framework: a loop
(guard_script.py) whose own figures leak towards its --capacity runs under
`python3 -m oomscope_agent --checkpoint-before-oom 30 --checkpoint-callback guard_callback:on_oom`; the
callback must run before the loop's own OOM (a `checkpoint_before_oom` event naming the forecast, then a
`restart`), and the loop must finish without one; without the guard the same loop runs out. Bad options
are refused with one sentence; a callback that cannot be loaded is said, never raised.

usage: test_python_forecast_guard.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, check, lines  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "guard_script.py")


def run(cli, tmp, name, agent_args, env_extra=None):
    ep_file = os.path.join(tmp, name + ".endpoint")
    env = dict(os.environ, PYTHONPATH=AGENT_PATH, **(env_extra or {}))
    cmd = [
        sys.executable,
        "-m",
        "oomscope_agent",
        "--port",
        "0",
        "--endpoint-file",
        ep_file,
        "--interval",
        "20",
    ]
    proc = subprocess.Popen(
        cmd + agent_args + [SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.time() + 60
    while not os.path.exists(ep_file) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    out_path = os.path.join(tmp, name + ".json")
    with open(out_path, "w") as f:
        watch = subprocess.Popen([cli, "watch", open(ep_file).read().split()[0], "--json"], stdout=f)
        out, err = proc.communicate(timeout=240)
        time.sleep(0.3)
        watch.terminate()
        watch.wait(timeout=30)
    return lines(out_path), out, err, proc.returncode


def main():
    cli = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="oomscope-py-guard-")
    env = dict(os.environ, PYTHONPATH=AGENT_PATH)
    for bad, want in (
        (["--checkpoint-before-oom", "0"], "needs a number of steps of at least 1"),
        (["--capacity", "lots"], "'lots' is not a size"),
    ):
        r = subprocess.run(
            [sys.executable, "-m", "oomscope_agent", "--port", "0"] + bad + [SCRIPT],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        check(
            r.returncode == 2 and want in r.stderr,
            "%s: refused (%r)" % (" ".join(bad), r.stderr.strip()[-200:]),
        )

    got, out, err, code = run(cli, tmp, "unguarded", ["--capacity", "64MiB"])
    ooms = [x for x in got if x["type"] == "event" and x["kind"] == "oom"]
    check(code == 3 and ooms, "without the guard the loop runs out (exit %d, %s)" % (code, out.strip()))
    real = ooms[0]["step"]

    ckpt = os.path.join(tmp, "checkpoints.txt")
    got, out, err, code = run(
        cli,
        tmp,
        "guarded",
        [
            "--capacity",
            "64MiB",
            "--checkpoint-before-oom",
            "30",
            "--checkpoint-callback",
            "guard_callback:on_oom",
        ],
        {"GUARD_CHECKPOINT": ckpt},
    )
    check(
        "the checkpoint callback runs when the OOM forecast comes within 30 steps" in err, "the agent says so"
    )
    hello = next(x for x in got if x["type"] == "hello")
    check(
        hello["total_bytes"] == 64 << 20,
        "the capacity is the hello's total_bytes (%s)" % hello["total_bytes"],
    )
    events = [x for x in got if x["type"] == "event"]
    fired = [e for e in events if e["kind"] == "checkpoint_before_oom"]
    check(fired, "the callback ran (see %s)" % tmp)
    first = fired[0]
    print(
        "callback at step %s (real OOM without it at step %d): %s"
        % (first.get("step"), real, first["message"])
    )
    check("within 30 steps (OOM forecast at step " in first["message"], "the event names the forecast")
    check(first["step"] < real, "before the step where the unguarded loop ran out")
    check(any(e["kind"] == "restart" and e["t"] >= first["t"] for e in events), "a restart event follows it")
    check(
        len(fired) == 1,
        "the callback ran once (%d time(s)): the forecast before the restart is dropped" % len(fired),
    )
    check(os.path.exists(ckpt) and "[derived]" in open(ckpt).read(), "the callback got the forecast")
    check(code == 0 and "done: 900 steps" in out, "the guarded loop finished without an OOM (exit %d)" % code)
    check(not [e for e in events if e["kind"] == "oom"], "no oom event")

    got, out, err, code = run(
        cli,
        tmp,
        "nocallback",
        [
            "--capacity",
            "64MiB",
            "--checkpoint-before-oom",
            "30",
            "--checkpoint-callback",
            "no_such_module:fn",
        ],
    )
    check(
        "cannot load the checkpoint callback no_such_module:fn" in err,
        "an unloadable callback is said on stderr",
    )
    check("Traceback" not in err, "no traceback")
    fired = [x for x in got if x["type"] == "event" and x["kind"] == "checkpoint_before_oom"]
    check(fired and "no checkpoint callback is registered" in fired[0]["message"], "the event says none ran")
    check(code == 3, "and the loop ran out as without the guard (exit %d)" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
