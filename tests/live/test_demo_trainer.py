"""End to end with the real LibTorch demo trainer: `oomscope-demo-trainer --serve unix:PATH` under a tight
budget, watched and recorded by oomscope-cli. Asserts the budgeted allocator's figures in the samples, the
oom, split, checkpoint and restart events from the trainer's observer, and that the client re-attaches
to the process the restart (execv) puts in its place; the recording replays the same.

usage: test_demo_trainer.py OOMSCOPE_CLI [OOMSCOPE_DEMO_TRAINER]   (skipped without the trainer)
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check, lines  # noqa: E402


def main():
    cli = sys.argv[1]
    trainer = sys.argv[2] if len(sys.argv) > 2 else ""
    if not trainer or not os.path.exists(trainer):
        print("SKIP: oomscope-demo-trainer was not built (no LibTorch)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-trainer-")
    sock = os.path.join(tmp, "t.sock")
    out = os.path.join(tmp, "watch.json")
    rec = os.path.join(tmp, "run.oomlive")
    # The watch starts first and waits for the socket (reconnects with backoff).
    with open(out, "w") as f:
        watch = subprocess.Popen(
            [cli, "watch", "unix:" + sock, "--json", "--record", rec, "--alert", "moves:ooms"], stdout=f
        )
        log = open(os.path.join(tmp, "trainer.log"), "w")
        proc = subprocess.run(
            [
                trainer,
                "--steps",
                "4",
                "--scenes",
                "8",
                "--batch",
                "2",
                "--width",
                "8",
                "--budget",
                "64MiB",
                "--checkpoint",
                os.path.join(tmp, "ck"),
                "--checkpoint-every",
                "2",
                "--hold-per-step",
                "8MiB",
                "--restart-above",
                "20MiB",
                "--quiet",
                "--serve",
                "unix:" + sock,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=600,
        )
        time.sleep(1.0)
        watch.terminate()
        watch.wait(timeout=30)
    check(proc.returncode == 0, "the trainer ran to the end (exit %d)" % proc.returncode)
    text = open(os.path.join(tmp, "trainer.log")).read()
    check("serving live stats on unix:" in text, "the trainer said where it serves")
    got = lines(out)
    hello = [x for x in got if x["type"] == "hello"]
    check(
        hello and hello[0]["framework"].startswith("libtorch") and hello[0]["total_bytes"] == 64 << 20,
        "hello: libtorch, the budget as capacity",
    )
    samples = [x for x in got if x["type"] == "sample"]
    check(
        len(samples) >= 10 and all("allocated" in x and "rss" in x for x in samples[2:]),
        "samples carry the budgeted allocator's live bytes and the RSS (%d)" % len(samples),
    )
    check(
        max(x.get("peak_allocated", 0) for x in samples) <= 64 << 20, "peak allocated stays within the budget"
    )
    kinds = {x["kind"] for x in got if x["type"] == "event"}
    check(
        {"oom", "split", "checkpoint", "restart"} <= kinds,
        "oom, split, checkpoint and restart events (%s)" % kinds,
    )
    ck = [x for x in got if x["type"] == "event" and x["kind"] == "checkpoint"]
    check(ck[0].get("path", "").endswith("/ck"), "the checkpoint event names its file")
    connects = [x for x in got if x["type"] == "status" and x["connected"]]
    check(len(connects) >= 2, "re-attached after the restart (%d connections)" % len(connects))
    check(any(x["type"] == "alert" and x["rule"] == "moves:ooms" for x in got), "the OOM counter alert fired")
    steps = [x["step"] for x in samples if "step" in x]
    check(steps and max(steps) == 4, "the step reaches 4 (got %s)" % (max(steps) if steps else None))
    rep = subprocess.run([cli, "replay", rec], capture_output=True, text=True, timeout=60)
    check(
        rep.returncode == 0 and "event restart" in rep.stdout and "gap at" in rep.stdout,
        "the recording replays with the restart and its gap:\n" + rep.stdout[-1500:],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
