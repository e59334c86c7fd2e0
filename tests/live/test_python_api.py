"""The Python agent's API without a framework: step(), observe_batch() with shapes, event() with a path;
hostile arguments never raise; a second start() returns the running agent.

usage: test_python_api.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, check, lines  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cli = sys.argv[1]
    env = dict(os.environ, PYTHONPATH=AGENT_PATH)
    proc = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "api_script.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        ep = proc.stdout.readline().strip()
        check(ep.startswith("127.0.0.1:"), "the agent serves on loopback (%s)" % ep)
        out = subprocess.run(
            [cli, "watch", ep, "--json", "--duration", "3"], capture_output=True, text=True, timeout=60
        ).stdout
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "oomscope-api-%d.json" % os.getpid())
        with open(path, "w") as f:
            f.write(out)
        got = lines(path)
        os.unlink(path)
        samples = [x for x in got if x["type"] == "sample"]
        check(
            len(samples) >= 10
            and samples[-1]["step"] > samples[0]["step"]
            and samples[-1]["micro"] == 4 * samples[-1]["step"],
            "step() and micro reach the samples",
        )
        events = {x["kind"]: x for x in got if x["type"] == "event"}
        check(
            "checkpoint" in events and events["checkpoint"]["path"] == "/tmp/ckpt-3.pt",
            "event() with a path arrives (repeated to a client that attached later)",
        )
        check(
            "note" in events and events["note"]["message"].startswith("<object"),
            "an odd message is sent as text",
        )
        shapes = [x for x in got if x["type"] == "shapes"]
        check(
            shapes and shapes[-1]["distinct"] == 7 and len(shapes[0].get("new", [])) >= 1,
            "observe_batch(shape) counts 7 distinct shapes (%s)"
            % (shapes[-1]["distinct"] if shapes else None),
        )
        check(proc.poll() is None, "the script is still running: nothing raised")
    finally:
        proc.kill()
        proc.wait()
    check("Traceback" not in proc.stderr.read(), "no traceback from the agent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
