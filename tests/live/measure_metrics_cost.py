"""Measures what /metrics costs an agent (not a test; figures for docs/prometheus.md):
- the time to answer one scrape (GET /metrics over loopback, median and p95 of N requests), for the Python
  agent and `oomscope-cli serve`;
- the agent process's CPU time over S seconds without /metrics, and with /metrics scraped every second.

usage: measure_metrics_cost.py OOMSCOPE_CLI [--seconds S] [--requests N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import prom_util as pu  # noqa: E402
from live_util import AGENT_PATH  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def start(kind, cli, tmp, metrics):
    ep_file = os.path.join(tmp, "%s-%s.ep" % (kind, metrics))
    if kind == "python":
        cmd = [sys.executable, "-m", "oomscope_agent", "--port", "0", "--endpoint-file", ep_file]
        cmd += ["--metrics-port", "0"] if metrics else []
        cmd += [pu.ALLOC_TINY, "--sleep", "1", "--mib", "1"]  # an idle trainer: the agent's cost shows
    else:
        cmd = [cli, "serve", "--port", "0", "--endpoint-file", ep_file] + (
            ["--metrics-port", "0"] if metrics else []
        )
    proc = subprocess.Popen(
        cmd, env=dict(os.environ, PYTHONPATH=AGENT_PATH), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while not os.path.exists(ep_file):
        time.sleep(0.05)
    time.sleep(0.5)
    return proc, open(ep_file).read().split()


def scrape_times(endpoint, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        with urllib.request.urlopen("http://%s/metrics" % endpoint, timeout=10) as r:
            r.read()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--requests", type=int, default=500)
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="oomscope-cost-")
    for kind in ("python", "cpp"):
        proc, eps = start(kind, a.cli, tmp, True)
        ms = sorted(scrape_times(eps[1], a.requests))
        size = len(urllib.request.urlopen("http://%s/metrics" % eps[1]).read())
        print(
            "%-6s one scrape: median %.2f ms, p95 %.2f ms over %d requests (%d bytes)"
            % (kind, statistics.median(ms), ms[int(len(ms) * 0.95)], len(ms), size)
        )
        proc.kill()
        proc.wait()
        for metrics in (False, True):
            proc, eps = start(kind, a.cli, tmp, metrics)
            c0, t0 = cpu_seconds(proc.pid), time.time()
            while time.time() - t0 < a.seconds:
                if metrics:
                    urllib.request.urlopen("http://%s/metrics" % eps[1], timeout=10).read()
                time.sleep(1.0)
            used = cpu_seconds(proc.pid) - c0
            print(
                "%-6s %s: %.3f CPU s in %.0f s = %.2f%% of one core"
                % (
                    kind,
                    "with /metrics scraped every 1 s" if metrics else "without /metrics             ",
                    used,
                    time.time() - t0,
                    100 * used / (time.time() - t0),
                )
            )
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
