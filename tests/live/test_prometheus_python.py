"""The Python agent's Prometheus /metrics (real processes, loopback only): the page passes
`promtool check metrics`; its figures equal what the same agent serves on its stats socket at the same moment
(within one sample); figures the agent does not have are absent; the labels are there; a non-loopback
address needs the token (as a Bearer token); the API start(metrics_port=...) serves too; and a real
`prometheus` scraping two agents every second answers /api/v1/query with their figures.

usage: test_prometheus_python.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, SKIP, check  # noqa: E402
import prom_util as pu  # noqa: E402


def scrape_during_stats(agent):
    """Scrapes /metrics while reading the stats socket: (parsed metrics, scrape time, samples around it)."""
    import threading

    box = {}

    def reader():
        box["stats"] = pu.read_stats(agent.stats, seconds=2.0)

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(1.0)
    t0 = time.time()
    status, ctype, text = pu.scrape(agent.metrics)
    t1 = time.time()
    t.join()
    return status, ctype, text, (t0, t1), box["stats"]


def main():
    if not pu.have_prometheus():
        print("SKIP: prometheus/promtool not installed (packaging/install-deps.sh installs them)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-prom-")
    agents = pu.start_python_agents(2, tmp, job="train")
    prom = None
    try:
        a = agents[1]
        time.sleep(1.0)  # a few steps
        status, ctype, text, (t0, t1), (hello, samples, _) = scrape_during_stats(a)
        check(
            status == 200 and ctype.startswith("text/plain; version=0.0.4"), "GET /metrics: 200, %s" % ctype
        )
        ok, out = pu.check_metrics_text(text)
        check(ok, "promtool check metrics passes" + (": " + out if out else ""))
        m = pu.parse_metrics(text)
        for name in (
            "oomscope_rss_bytes",
            "oomscope_optimizer_step",
            "oomscope_distinct_input_shapes",
            "oomscope_dropped_samples_total",
            "oomscope_splits_total",
            "oomscope_restarts_total",
            "oomscope_agent_info",
        ):
            check(name in m, "%s is served" % name)
        for name in (
            "oomscope_allocated_bytes",
            "oomscope_reserved_bytes",
            "oomscope_driver_bytes",
            "oomscope_device_used_bytes",
            "oomscope_device_capacity_bytes",
            "oomscope_ooms_total",
        ):
            check(name not in m, "%s is absent (a CPU process without torch does not have it)" % name)
        labels = m["oomscope_rss_bytes"][0][0]
        check(
            labels.get("rank") == "1"
            and labels.get("local_rank") == "1"
            and labels.get("job") == "train"
            and labels.get("device") == "cpu"
            and labels.get("host"),
            "labels rank, local_rank, host, device, " "job: %s" % labels,
        )
        info = m["oomscope_agent_info"][0]
        check(
            info[1] == 1
            and info[0]["agent"] == "python"
            and info[0]["backend"] == "cpu"
            and info[0]["stats_endpoint"] == a.stats,
            "agent_info names the python agent and its stats socket",
        )
        # The same moment on the stats socket: the sample in force when the scrape ran (taken at most one
        # interval before it), or the one that replaced it while the page was rendered.
        near = [s for s in samples if t0 - 0.35 <= s["_recv"] <= t1 + 0.25]
        check(len(near) >= 2, "the stats socket sent samples around the scrape (%d)" % len(near))
        for metric, field in (("oomscope_rss_bytes", "rss"), ("oomscope_optimizer_step", "step")):
            value = m[metric][0][1]
            check(
                any(s.get(field) == value for s in near),
                "%s %d equals a stats-socket sample within one sample (%s)"
                % (metric, value, [s.get(field) for s in near]),
            )
        check(
            hello["rank"] == 1 and hello["backend"] == "cpu", "the stats socket's hello agrees (rank 1, cpu)"
        )
        rss_values = set()
        for _ in range(10):
            rss_values.add(pu.parse_metrics(pu.scrape(a.metrics)[2])["oomscope_rss_bytes"][0][1])
            time.sleep(0.15)
        check(
            len(rss_values) > 1,
            "rss moves while the script allocates and frees (%d values)" % len(rss_values),
        )
        check(pu.scrape(a.metrics.replace("/metrics", ""))[0] == 200, "repeat scrapes answer")
        status = pu.scrape(a.metrics + "/../nope")[0]
        check(status == 404, "another path is 404 (got %s)" % status)

        # A real prometheus scraping both agents every second.
        prom = pu.start_prometheus(tmp, [x.metrics for x in agents])
        pu.wait_targets_up(prom, 2)
        time.sleep(1.5)
        got = pu.query(prom, 'oomscope_rss_bytes{job="train"}')
        check(
            sorted(x[0]["rank"] for x in got) == ["0", "1"],
            "prometheus has rss for ranks 0 and 1 with the " "agents' own job label (honor_labels): %s" % got,
        )
        check(all(x[1] > 1e6 for x in got), "their rss figures are real (%s)" % [x[1] for x in got])
        steps = pu.query(prom, 'oomscope_optimizer_step{job="train"}')
        check(len(steps) == 2 and all(x[1] > 0 for x in steps), "and their optimizer steps (%s)" % steps)
        info = pu.query(prom, 'oomscope_agent_info{job="train"}')
        check(
            sorted(x[0]["stats_endpoint"] for x in info) == sorted(x.stats for x in agents),
            "agent_info leads from each series to its stats socket",
        )
    finally:
        if prom:
            prom.stop()
        pu.stop_all(agents)

    # The API, and the token rule for an address other than loopback.
    env = dict(os.environ, PYTHONPATH=AGENT_PATH)
    code = (
        "import oomscope_agent as oa, time\n"
        "a = oa.start(port=0, metrics_port=0, job='api')\n"
        "print(a.metrics.endpoint, a.metrics.renderer, flush=True)\n"
        "oa.step(7); oa.event('split', 'x'); oa.event('restart', 'y'); oa.event('split', 'z')\n"
        "time.sleep(60)\n"
    )
    renderers = [("builtin", {"OOMSCOPE_NO_PROMETHEUS_CLIENT": "1"})]
    if (
        subprocess.run(
            [sys.executable, "-c", "import prometheus_client"], env=env, capture_output=True
        ).returncode
        == 0
    ):
        renderers.append(("prometheus_client", {}))
    else:
        print("note: prometheus_client is not importable here; only the built-in renderer is exercised")
    for renderer, extra_env in renderers:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], env=dict(env, **extra_env), stdout=subprocess.PIPE, text=True
        )
        try:
            ep, used = proc.stdout.readline().split()
            check(used == renderer, "the agent renders with %s" % used)
            time.sleep(0.5)
            text = pu.scrape(ep)[2]
            ok, out = pu.check_metrics_text(text)
            check(
                ok, "%s renderer: promtool check metrics passes%s" % (renderer, (": " + out) if out else "")
            )
            m = pu.parse_metrics(text)
            check(
                m["oomscope_optimizer_step"][0][1] == 7
                and m["oomscope_splits_total"][0][1] == 2
                and m["oomscope_restarts_total"][0][1] == 1,
                "start(metrics_port=0): step 7, 2 splits, 1 restart",
            )
            kinds = {x[0]["kind"]: x[1] for x in m["oomscope_events_total"]}
            check(
                kinds == {"split": 2, "restart": 1, "oom": 0, "checkpoint": 0},
                "events_total by kind: %s" % kinds,
            )
            check(
                "oomscope_distinct_input_shapes" not in m, "no batch observed: distinct shapes absent, not 0"
            )
            check(m["oomscope_rss_bytes"][0][0].get("job") == "api", "start(job=...) labels the series")
        finally:
            proc.kill()
            proc.wait()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "oomscope_agent",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--metrics-host",
            "0.0.0.0",
            pu.ALLOC_TINY,
            "--steps",
            "1",
        ],
        env=dict(env, OOMSCOPE_TOKEN=""),
        capture_output=True,
        text=True,
        timeout=60,
    )
    check(
        r.returncode == 2 and "needs a token" in r.stderr,
        "0.0.0.0 without a token is refused: " + r.stderr.strip(),
    )
    token_env = dict(env, OOMSCOPE_TOKEN="s3cret")
    ep_file = os.path.join(tmp, "tok.endpoints")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "oomscope_agent",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--metrics-host",
            "0.0.0.0",
            "--endpoint-file",
            ep_file,
            pu.ALLOC_TINY,
        ],
        env=token_env,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 30
        while not os.path.exists(ep_file) and time.time() < deadline:
            time.sleep(0.05)
        port = open(ep_file).read().split()[1].rsplit(":", 1)[1]
        loop = "127.0.0.1:" + port  # bound on all addresses; the test talks to loopback only
        check(pu.scrape(loop)[0] == 401, "with a token, a scrape without it gets 401")
        check(pu.scrape(loop, token="wrong")[0] == 401, "a wrong token gets 401")
        check(pu.scrape(loop, token="s3cret")[0] == 200, "the right Bearer token gets the page")
    finally:
        proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
