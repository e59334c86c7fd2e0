"""The Python agent wrapping an unchanged PyTorch CPU training loop, watched by oomscope-cli (real processes):
samples and shapes arrive; killing and restarting the agent re-attaches with the gap marked; killing the
client while it records loses at most a second; the wrapped script runs to completion unchanged.

usage: test_python_agent.py OOMSCOPE_CLI
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check, lines, start_agent, torch_python, wait_until_stepping  # noqa: E402


def main():
    cli = sys.argv[1]
    python = torch_python()
    if python is None:
        print("SKIP: no python with torch")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-live-")
    agent, ep = start_agent(python, tmp, "a1")
    try:
        wait_until_stepping(cli, ep)
        # 1. Samples from the unchanged trainer.
        out = os.path.join(tmp, "watch1.json")
        with open(out, "w") as f:
            subprocess.run([cli, "watch", ep, "--json", "--duration", "8"], stdout=f, check=True, timeout=60)
        got = lines(out)
        hello = [x for x in got if x["type"] == "hello"]
        samples = [x for x in got if x["type"] == "sample"]
        check(
            hello and hello[-1]["backend"] == "cpu" and hello[-1]["framework"].startswith("torch"),
            "the last hello names the cpu backend and torch",
        )
        check(len(samples) >= 25, "at least 25 samples in 8 s at 10 Hz (got %d)" % len(samples))
        check(all(x.get("rss", 0) > 0 for x in samples), "every sample has the process RSS")
        steps = [x["step"] for x in samples if "step" in x]
        check(
            len(steps) >= 20 and steps == sorted(steps) and steps[-1] > steps[0],
            "optimizer steps are counted without touching the script (%s..%s)" % (steps[:1], steps[-1:]),
        )
        check(any("micro" in x for x in samples), "micro-batches (backward calls) are counted")
        shapes = [x for x in got if x["type"] == "shapes"]
        check(
            shapes and shapes[-1]["distinct"] > 3 and len(shapes[-1]["last"]) == 3,
            "DataLoader batch shapes are counted (%d distinct)" % (shapes[-1]["distinct"] if shapes else 0),
        )
        ts = [x["t"] for x in samples]
        check(len(set(ts)) == len(ts), "no sample is delivered twice")

        # 2. Kill the agent and start it again on the same port: the client re-attaches, the gap is marked.
        port = ep.rsplit(":", 1)[1]
        out2 = os.path.join(tmp, "watch2.json")
        rec2 = os.path.join(tmp, "reattach.oomlive")
        with open(out2, "w") as f:
            watch = subprocess.Popen(
                [cli, "watch", ep, "--json", "--duration", "20", "--record", rec2], stdout=f
            )
            time.sleep(3)
            agent.kill()
            agent.wait()
            killed_at = time.time_ns()
            time.sleep(1)
            agent, ep2 = start_agent(python, tmp, "a2", port=int(port))
            check(ep2 == ep, "restarted agent serves the same endpoint")
            watch.wait(timeout=120)
        got = lines(out2)
        status = [x for x in got if x["type"] == "status"]
        connects = [x for x in status if x["connected"]]
        drops = [x for x in status if not x["connected"]]
        check(len(connects) == 2, "connected twice (got %d)" % len(connects))
        check(
            drops and "closed the connection" in drops[0]["message"],
            "the drop says why: " + (drops[0]["message"] if drops else "none"),
        )
        after = [x for x in got if x["type"] == "sample" and x["t"] > killed_at]
        check(len(after) >= 3, "samples again after the restart (%d)" % len(after))
        rep = subprocess.run([cli, "replay", rec2], capture_output=True, text=True, check=True).stdout
        check("gap at +" in rep, "the recording shows the gap:\n" + rep)

        # 3. Kill the client (SIGKILL) while it records: at most the last second is lost.
        wait_until_stepping(cli, ep)
        out3 = os.path.join(tmp, "watch3.json")
        rec3 = os.path.join(tmp, "killed.oomlive")
        with open(out3, "w") as f:
            watch = subprocess.Popen([cli, "watch", ep, "--json", "--record", rec3], stdout=f)
            time.sleep(5)
            watch.send_signal(signal.SIGKILL)
            watch.wait()
        seen = [x["t"] for x in lines(out3) if x["type"] == "sample"]
        rep = subprocess.run([cli, "replay", rec3, "--json"], capture_output=True, text=True)
        check(rep.returncode == 0, "a recording cut by SIGKILL opens (%s)" % rep.stderr.strip())
        kept = [
            int(x.split('"t":')[1].split(",")[0].rstrip("}"))
            for x in rep.stdout.splitlines()
            if '"sample"' in x
        ]
        lost_s = (max(seen) - max(kept)) / 1e9 if kept else 99
        check(
            kept and lost_s <= 1.0, "recording lost %.2f s of %d samples (at most 1 s)" % (lost_s, len(seen))
        )
        check("not closed" in rep.stderr, "replay says the recording was not closed")
    finally:
        agent.kill()
        agent.wait()

    # 4. The wrapped script runs unchanged to the end and exits 0.
    done = os.path.join(tmp, "done")
    proc, _ = start_agent(python, tmp, "a3", script_args=("--steps", "60", "--sleep", "0", "--done", done))
    rc = proc.wait(timeout=120)
    check(
        rc == 0 and open(done).read().strip() == "60", "the script ran its 60 steps under the agent, exit 0"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
