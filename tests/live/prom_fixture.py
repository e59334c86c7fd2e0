"""A Prometheus scene for the GUI tests (real processes, loopback only), started by a QtTest through
QProcess: N Python agents (alloc_static.py, ranks 0..N-1, no device figures: their headroom is unknown),
a stand-in exporter for three GPU ranks that no real GPU backs (ranks 10-12 on host gpu-node-a, 80 GiB
each; rank 12 publishes no device figure of its own, and a DCGM-style DCGM_FI_DEV_FB_USED series for
gpu-node-a / gpu 2 gives it one), and `prometheus` scraping all of them every second with honor_labels.

Prints one JSON line once every rank has been scraped: {"url", "job", "agents": [{"rank", "stats"}],
"standin"}; then waits for stdin to close (or a line "quit") and stops everything.

usage: prom_fixture.py [N]
"""

import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prom_util as pu  # noqa: E402
import test_prometheus_watch as tw  # noqa: E402

GIB = 1 << 30
JOB = "uitest"


def standin_text():
    """The stand-in's exposition: three GPU ranks (device_used 50 / 78 / none of 80 GiB) and DCGM."""
    lines = []

    def put(name, rank, value, extra=""):
        labels = 'job="%s",rank="%d",local_rank="%d",host="gpu-node-a",device="cuda:%d"%s' % (
            JOB,
            rank,
            rank - 10,
            rank - 10,
            extra,
        )
        lines.append("%s{%s} %d" % (name, labels, value))

    for rank, used in ((10, 50 * GIB), (11, 78 * GIB), (12, None)):
        put("oomscope_allocated_bytes", rank, 30 * GIB + rank)
        put("oomscope_reserved_bytes", rank, 34 * GIB + rank)
        put("oomscope_device_capacity_bytes", rank, 80 * GIB)
        put("oomscope_optimizer_step", rank, 500 + rank)
        if used is not None:
            put("oomscope_device_used_bytes", rank, used)
    # rank 10 names a stats socket nobody listens on; rank 11 publishes no agent_info at all
    put(
        "oomscope_agent_info",
        10,
        1,
        ',agent="standin",version="0",backend="cuda",stats_endpoint="127.0.0.1:1"',
    )
    put("oomscope_agent_info", 12, 1, ',agent="standin",version="0",backend="cuda",stats_endpoint=""')
    lines.append(
        'DCGM_FI_DEV_FB_USED{gpu="2",UUID="GPU-standin-2",modelName="stand-in",Hostname="gpu-node-a"} 70000'
    )
    lines.append(
        'DCGM_FI_DEV_FB_USED{gpu="3",UUID="GPU-standin-3",modelName="stand-in",Hostname="gpu-node-a"} 1000'
    )
    return ("\n".join(lines) + "\n").encode()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = standin_text()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    if not pu.have_prometheus():
        print(json.dumps({"skip": "prometheus/promtool not installed"}), flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        agents, prom = [], None
        standin = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=standin.serve_forever, daemon=True).start()
        standin_ep = "127.0.0.1:%d" % standin.server_address[1]
        try:
            agents = tw.start_static_agents(n, tmp, job=JOB)
            prom = pu.start_prometheus(
                tmp, [a.metrics for a in agents] + [standin_ep], job=JOB, interval="1s"
            )
            pu.wait_targets_up(prom, n + 1)
            deadline = time.time() + 30
            while (
                time.time() < deadline
                and len(
                    pu.query(prom, 'oomscope_allocated_bytes{job="%s"}' % JOB)
                    + pu.query(prom, 'oomscope_rss_bytes{job="%s"}' % JOB)
                )
                < n + 3
            ):
                time.sleep(0.3)
            time.sleep(1.5)
            print(
                json.dumps(
                    {
                        "url": prom.url,
                        "job": JOB,
                        "standin": standin_ep,
                        "agents": [{"rank": i, "stats": a.stats} for i, a in enumerate(agents)],
                    }
                ),
                flush=True,
            )
            for line in sys.stdin:
                if line.strip() == "quit":
                    break
        finally:
            if prom:
                prom.stop()
            pu.stop_all(agents)
            standin.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
