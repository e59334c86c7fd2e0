"""oomscope-cli watch attached at once to a real agent and six misbehaving peers (garbage, oversized lines,
a stall, death mid-line, not an agent, wrong-typed fields) plus an agent that wants a token we get wrong:
the real agent's samples keep coming, every bad peer is reported with a clear reason, nothing crashes.

usage: test_misbehaving_agents.py OOMSCOPE_CLI
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import (  # noqa: E402
    AGENT_PATH,
    SKIP,
    check,
    lines,
    start_agent,
    torch_python,
    wait_until_stepping,
)

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cli = sys.argv[1]
    python = torch_python()
    if python is None:
        print("SKIP: no python with torch")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-fake-")
    ports_file = os.path.join(tmp, "ports.json")
    fakes = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_agents.py"), ports_file])
    agent, ep = start_agent(python, tmp, "good")
    tokened, tep = start_agent(python, tmp, "tokened", extra=("--token", "right-token"))
    try:
        while not os.path.exists(ports_file):
            time.sleep(0.05)
        ports = json.load(open(ports_file))
        wait_until_stepping(cli, ep)
        kinds = list(ports)
        eps = [ep] + ["127.0.0.1:%d" % ports[k] for k in kinds]
        out = os.path.join(tmp, "watch.json")
        with open(out, "w") as f:
            rc = subprocess.run(
                [cli, "watch", *eps, "--json", "--duration", "7", "--stall", "2"], stdout=f, timeout=60
            ).returncode
        check(rc == 0, "watch exits 0 after its duration")
        got = lines(out)

        def of(rank, typ):
            return [x for x in got if x.get("rank") == rank and x["type"] == typ]

        good = of(0, "sample")
        ended = time.time_ns()
        check(
            len(good) >= 30 and ended - good[-1]["t"] < 2e9,
            "the real agent's samples keep coming to the end (%d)" % len(good),
        )
        r = {k: i + 1 for i, k in enumerate(kinds)}
        bad = of(r["garbage"], "bad_line")
        check(
            len(of(r["garbage"], "sample")) >= 20
            and len(bad) >= 20
            and any("not valid JSON" in x["error"] for x in bad)
            and any("not an object" in x["error"] for x in bad)
            and any("no string 'type'" in x["error"] for x in bad),
            "garbage: samples kept, junk lines counted and named (%d)" % len(bad),
        )
        check(
            not any("from_the_future" in json.dumps(x) for x in bad),
            "an unknown type is ignored, not an error",
        )
        big = of(r["oversized"], "bad_line")
        check(
            big
            and "over the 65536-byte limit" in big[0]["error"]
            and len(of(r["oversized"], "sample")) >= 20,
            "oversized: capped and skipped, samples kept (%s)" % (big[0]["error"] if big else "none"),
        )
        st = [x["message"] for x in of(r["stall"], "status") if not x["connected"]]
        check(any("sent nothing for 2000 ms" in m for m in st), "stall: dropped and retried (%s)" % st[:1])
        check(len([x for x in of(r["stall"], "status") if x["connected"]]) >= 2, "stall: reconnected")
        ml = [x["message"] for x in of(r["midline"], "status") if not x["connected"]]
        check(
            any("mid-line" in m and "bytes lost" in m for m in ml), "midline: the loss is said (%s)" % ml[:1]
        )
        na = [x["message"] for x in of(r["notagent"], "status") if not x["connected"]]
        check(
            any("not an oomscope agent" in m and "HTTP/1.1 400" in m for m in na)
            and not of(r["notagent"], "sample"),
            "not an agent: refused with its first line (%s)" % na[:1],
        )
        wt = of(r["wrongtype"], "bad_line")
        check(
            wt
            and "'allocated' should be an integer" in wt[0]["error"]
            and len(of(r["wrongtype"], "sample")) >= 20,
            "wrong-typed figures: the line is skipped with the field named",
        )

        # A wrong token: the agent closes the connection and logs why; the right one works.
        out2 = os.path.join(tmp, "token.json")
        with open(out2, "w") as f:
            subprocess.run(
                [cli, "watch", tep, "--json", "--duration", "2", "--token", "wrong"], stdout=f, timeout=30
            )
        got = lines(out2)
        msgs = [x["message"] for x in got if x["type"] == "status" and not x["connected"]]
        check(
            msgs and "before its hello" in msgs[0] and not [x for x in got if x["type"] == "sample"],
            "wrong token: no data, connection closed (%s)" % msgs[:1],
        )
        time.sleep(0.3)
        err = open(os.path.join(tmp, "tokened.stderr")).read()
        check("closed a connection: wrong token" in err, "the agent logged the wrong token")
        with open(out2, "w") as f:
            subprocess.run(
                [cli, "watch", tep, "--json", "--duration", "4"],
                stdout=f,
                timeout=30,
                env=dict(os.environ, OOMSCOPE_TOKEN="right-token"),
            )
        check(
            len([x for x in lines(out2) if x["type"] == "sample"]) >= 3,
            "the right token (from $OOMSCOPE_TOKEN) works",
        )
        bind = subprocess.run(
            [python, "-m", "oomscope_agent", "--host", "0.0.0.0", "--port", "0", "x.py"],
            env=dict(os.environ, PYTHONPATH=AGENT_PATH, OOMSCOPE_TOKEN=""),
            capture_output=True,
            text=True,
            timeout=30,
        )
        check(
            bind.returncode == 2 and "needs a token" in bind.stderr,
            "binding 0.0.0.0 without a token is refused",
        )
    finally:
        for p in (fakes, agent, tokened):
            p.kill()
            p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
