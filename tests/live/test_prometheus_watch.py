"""`oomscope-cli watch prometheus:...` against a real Prometheus scraping real agents (loopback only).

64 Python agents (RANKS overrides), each wrapping alloc_static.py (torch-free: step 1000+rank, (rank % 8)+1
MiB held, then still), are scraped every second by Debian's `prometheus` on 127.0.0.1 (honor_labels). The
test asserts that `watch ... --json` lists every rank, that each rank's figures equal what its own agent
serves on /metrics (step exactly; RSS equal to a value the agent served around that time, since RSS can
move by a page between scrapes), that a bad selector and an unreachable server get clear errors naming the
server, and that an agent killed is shown down (Prometheus's `up` is 0) while the others stay up.

usage: test_prometheus_watch.py OOMSCOPE_CLI [RANKS]      (ctest label: prometheus64)
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, SKIP, check  # noqa: E402
import prom_util as pu  # noqa: E402

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "alloc_static.py")


def watch(cli, prom, *args, timeout=120):
    r = subprocess.run(
        [cli, "watch", "prometheus:" + prom.url, *args, "--json", "--table"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    tables = [x for x in lines if x.get("type") == "table"]
    return r.returncode, r.stderr, lines, (tables[-1]["ranks"] if tables else [])


def start_static_agents(n, tmp, timeout=150, job="train"):
    """n agents at once (then waits for all), each with its own step and size: [prom_util.Agent]."""
    procs = []
    for i in range(n):
        ep_file = os.path.join(tmp, "r%d.endpoints" % i)
        env = dict(os.environ, PYTHONPATH=AGENT_PATH, RANK=str(i), LOCAL_RANK=str(i % 8), WORLD_SIZE=str(n))
        cmd = [
            sys.executable,
            "-m",
            "oomscope_agent",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--interval",
            "500",
            "--endpoint-file",
            ep_file,
            "--job",
            job,
            STATIC,
            "--step",
            str(1000 + i),
            "--mib",
            str(i % 8 + 1),
        ]
        err = open(os.path.join(tmp, "r%d.stderr" % i), "ab")
        procs.append(
            (subprocess.Popen(cmd, env=env, stderr=err, stdout=subprocess.DEVNULL), ep_file, "r%d" % i)
        )
    agents = []
    deadline = time.time() + timeout
    for proc, ep_file, name in procs:
        while not os.path.exists(ep_file):
            if proc.poll() is not None or time.time() > deadline:
                pu.stop_all([pu.Agent(p, "", "", m) for p, _, m in procs])
                raise SystemExit("FAILED: agent %s did not start (see its stderr)" % name)
            time.sleep(0.05)
        with open(ep_file) as f:
            stats, metrics = f.read().split()[:2]
        agents.append(pu.Agent(proc, stats, metrics, name))
    return agents


def served(agents):
    """{rank: {metric: value}} scraped from every agent's /metrics now."""
    out = {}
    for i, a in enumerate(agents):
        if a.proc.poll() is not None:
            continue
        _, _, text = pu.scrape(a.metrics)
        m = pu.parse_metrics(text)
        out[i] = {name: vals[0][1] for name, vals in m.items()}
    return out


def main():
    cli = sys.argv[1]
    n = (
        int(sys.argv[2])
        if len(sys.argv) > 2 and sys.argv[2].isdigit()
        else int(os.environ.get("RANKS", "64"))
    )
    if not pu.have_prometheus():
        print("skipped: prometheus/promtool not installed")
        return SKIP
    t_start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        agents, prom = [], None
        try:
            agents = start_static_agents(n, tmp)
            t_agents = time.time()
            prom = pu.start_prometheus(tmp, [a.metrics for a in agents], job="train", interval="1s")
            pu.wait_targets_up(prom, n, timeout=60)
            time.sleep(2.5)  # every target scraped at least twice
            print(
                "setup: %d agents in %.1f s, prometheus up after %.1f s"
                % (n, t_agents - t_start, time.time() - t_agents)
            )

            before = served(agents)
            rc, err, lines, table = watch(
                cli, prom, "--selector", 'job="train"', "--since", "1m", "--duration", "3"
            )
            after = served(agents)
            check(rc == 0, "watch through Prometheus exits 0 (stderr: %s)" % err.strip()[:300])
            check(len(table) == n, "the table lists all %d ranks (got %d)" % (n, len(table)))
            by_rank = {row.get("rank"): row for row in table}
            check(sorted(by_rank) == list(range(n)), "ranks 0..%d, each once" % (n - 1))
            check(
                all(row["status"] == "up" for row in table),
                "all ranks are up: %s"
                % [(r["rank"], r["status"], r["reason"]) for r in table if r["status"] != "up"][:5],
            )
            samples = [x for x in lines if x.get("type") == "sample"]
            check(len(samples) >= 2 * n, "history and follow-up samples were printed (%d)" % len(samples))
            bad = []
            for r in range(n):
                last = by_rank[r].get("last", {})
                want_step = before[r].get("oomscope_optimizer_step")
                if last.get("step") != want_step or want_step != 1000 + r:
                    bad.append("rank %d step %s, agent serves %s" % (r, last.get("step"), want_step))
                rss = last.get("rss")
                seen = {before[r].get("oomscope_rss_bytes"), after[r].get("oomscope_rss_bytes")}
                lo, hi = min(seen), max(seen)
                # RSS equals what the agent served, or lies between the values it served before and after.
                if rss is None or not (rss in seen or lo <= rss <= hi):
                    bad.append("rank %d rss %s, agent served %s" % (r, rss, sorted(seen)))
            check(not bad, "every rank's step and RSS match its agent's /metrics: %s" % bad[:5])
            mib = {r: by_rank[r]["last"]["rss"] for r in range(n)}
            check(
                all(mib[r + 1] > mib[r] for r in range(min(n, 8) - 1)),
                "RSS grows with the MiB each rank holds (ranks are not mixed up)",
            )

            rc, err, _, _ = watch(cli, prom, "--selector", 'job="train', "--duration", "2")
            check(
                rc != 0 and "unclosed quote" in err,
                "an unclosed quote in the selector is refused naming the problem: %s"
                % err.strip().splitlines()[0],
            )
            rc, err, _, _ = watch(cli, prom, "--selector", 'job=~"(("', "--duration", "5")
            check(
                rc != 0 and prom.url in err and "Prometheus refused the query" in err,
                "a selector Prometheus rejects gets its error text and the server: %s" % err.strip()[:200],
            )
            dead = "http://127.0.0.1:%d" % pu.free_port()
            r = subprocess.run(
                [cli, "watch", "prometheus:" + dead, "--json", "--duration", "5"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            check(
                r.returncode != 0 and dead in r.stderr and "cannot reach" in r.stderr,
                "an unreachable server is named: %s" % r.stderr.strip(),
            )

            victim = n // 2 + 1 if n > 2 else 0
            agents[victim].proc.kill()
            agents[victim].proc.wait()
            time.sleep(2.5)  # the next scrape fails: up = 0
            rc, err, _, table = watch(
                cli, prom, "--selector", 'job="train"', "--since", "30s", "--duration", "2.5"
            )
            by_rank = {row.get("rank"): row for row in table}
            check(rc == 0 and len(table) == n, "watch still lists all %d ranks after one died" % n)
            check(
                by_rank[victim]["status"] == "down" and "up is 0" in by_rank[victim]["reason"],
                "the killed rank %d is shown down: %s" % (victim, by_rank[victim]["reason"]),
            )
            others = [r for r in by_rank.values() if r["rank"] != victim and r["status"] != "up"]
            check(
                not others,
                "every other rank is still up: %s" % [(r["rank"], r["reason"]) for r in others][:5],
            )
        finally:
            if prom:
                prom.stop()
            pu.stop_all(agents)
    print("wall time %.1f s for %d ranks" % (time.time() - t_start, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
