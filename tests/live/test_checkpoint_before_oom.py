"""--checkpoint-before-oom on a real run: the leaking LibTorch run of test_forecast_trainer.py
(`oomscope-demo-trainer --leak-per-step 40KiB --budget 12MiB`, whose own c10::OutOfMemoryError comes at
about step 240 without the hook) with `--checkpoint FILE --checkpoint-before-oom 40`: the trainer forecasts
over its own steps, and before the real OOM writes its checkpoint and re-executes itself with --resume,
which frees what leaked. Watched with `oomscope-cli watch --json`: a `restart` event naming the forecast
must come before any `oom` event, and the run must go on past the step where the same run without the
hook ran out.

usage: test_checkpoint_before_oom.py OOMSCOPE_CLI [OOMSCOPE_DEMO_TRAINER]   (skipped without the trainer)
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check, lines  # noqa: E402
from test_forecast_trainer import BUDGET, LEAK, SIZES  # noqa: E402

WITHIN = 40


def run(cli, trainer, tmp, name, extra, steps):
    sock = os.path.join(tmp, name + ".sock")
    out = os.path.join(tmp, name + ".json")
    sizes = os.path.join(tmp, "sizes.txt")
    with open(sizes, "w") as f:
        f.write("\n".join(str(s) for s in SIZES) + "\n")
    log_path = os.path.join(tmp, name + ".log")
    with open(out, "w") as f, open(log_path, "w") as log:
        proc = subprocess.Popen(
            [trainer, "--sizes", sizes, "--batch", "1", "--epochs", str(steps // len(SIZES))]
            + ["--budget", BUDGET, "--quiet", "--serve", "unix:" + sock, "--leak-per-step", LEAK]
            + extra,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_until = time.time() + 60
        while not os.path.exists(sock) and proc.poll() is None and time.time() < wait_until:
            time.sleep(0.01)
        watch = subprocess.Popen([cli, "watch", "unix:" + sock, "--json", "--interval", "50"], stdout=f)
        try:
            code = proc.wait(timeout=420)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait(30)
        time.sleep(0.5)
        watch.terminate()
        watch.wait(timeout=30)
    return lines(out), open(log_path).read(), code


def main():
    cli = sys.argv[1]
    trainer = sys.argv[2] if len(sys.argv) > 2 else ""
    if not trainer or not os.path.exists(trainer):
        print("SKIP: oomscope-demo-trainer was not built (no LibTorch)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-ckpt-oom-")
    bad = subprocess.run([trainer, "--checkpoint-before-oom", "40"], capture_output=True, text=True)
    check(
        bad.returncode == 2 and "--checkpoint-before-oom needs --checkpoint FILE" in bad.stderr,
        "without --checkpoint: a usage error (%r)" % bad.stderr.strip(),
    )
    ckpt = os.path.join(tmp, "run.ckpt")
    got, log, code = run(
        cli, trainer, tmp, "guarded", ["--checkpoint", ckpt, "--checkpoint-before-oom", str(WITHIN)], 320
    )
    events = [x for x in got if x["type"] == "event"]
    restarts = [e for e in events if e["kind"] == "restart"]
    ooms = [e for e in events if e["kind"] == "oom"]
    check(restarts, "a restart event came (see %s/guarded.log)" % tmp)
    first = restarts[0]
    print("restart at step %s: %s" % (first.get("step"), first["message"]))
    check(
        "checkpoint before the forecast OOM (OOM forecast at step " in first["message"],
        "it names the forecast",
    )
    check("[derived]" in first["message"], "  tagged derived")
    check(not ooms or ooms[0]["t"] > first["t"], "it came before any oom event (%d oom events)" % len(ooms))
    check("restart before the forecast OOM: " in log, "the trainer's log says why it restarted")
    check(os.path.exists(ckpt), "the checkpoint was written")
    steps = [x.get("step") for x in got if x["type"] == "sample" and x.get("step") is not None]
    top = max(steps) if steps else 0
    check(code == 0 and "done:" in log, "the run finished (exit %d)" % code)
    check(top > 300, "it went on past where the unguarded run ran out (about step 240): step %d" % top)
    print(
        "FIGURE: %d restart(s) before the forecast OOM, %d oom events, last step %d"
        % (len(restarts), len(ooms), top)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
