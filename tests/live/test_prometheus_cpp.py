"""The C++ agent's Prometheus /metrics (real processes, loopback only): `oomscope-cli serve --metrics-port`
passes `promtool check metrics`, serves the same figures as its stats socket (within one sample), leaves out
what it does not have, labels every series; a real `prometheus` scraping it and a Python agent every second
returns both through /api/v1/query; the demo trainer's /metrics (when built) carries its allocator figures.

usage: test_prometheus_cpp.py OOMSCOPE_CLI [OOMSCOPE_DEMO_TRAINER]
"""

import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check  # noqa: E402
import prom_util as pu  # noqa: E402


def start_cpp(cmd, tmp, name, timeout=60):
    """Starts a C++ agent command given --endpoint-file-style output; returns (proc, stats, metrics)."""
    ep_file = os.path.join(tmp, name + ".endpoints")
    err = open(os.path.join(tmp, name + ".stderr"), "ab")
    proc = subprocess.Popen(cmd + ["--endpoint-file", ep_file], stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.time() + timeout
    while not os.path.exists(ep_file):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            raise SystemExit("FAILED: %s did not start (see %s/%s.stderr)" % (name, tmp, name))
        time.sleep(0.05)
    stats, metrics = open(ep_file).read().split()[:2]
    return proc, stats, metrics


def wait_for_metrics_file(proc, tmp, name, timeout=60):
    """The demo trainer prints its /metrics endpoint on stderr."""
    path = os.path.join(tmp, name + ".stderr")
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = open(path).read() if os.path.exists(path) else ""
        for line in text.splitlines():
            if "Prometheus metrics at http://" in line:
                return line.split("http://", 1)[1].split("/metrics")[0]
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit("FAILED: %s printed no /metrics endpoint (see %s)" % (name, path))


def main():
    cli = sys.argv[1]
    trainer = sys.argv[2] if len(sys.argv) > 2 else None
    if not pu.have_prometheus():
        print("SKIP: prometheus/promtool not installed (packaging/install-deps.sh installs them)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-promcpp-")
    serve, stats, metrics = start_cpp(
        [
            cli,
            "serve",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--job",
            "train",
            "--rank",
            "3",
            "--interval",
            "100",
        ],
        tmp,
        "serve",
    )
    agents, prom = [], None
    try:
        box = {}
        reader = threading.Thread(target=lambda: box.setdefault("s", pu.read_stats(stats, seconds=2.0)))
        reader.start()
        time.sleep(1.0)
        t0 = time.time()
        status, ctype, text = pu.scrape(metrics)
        t1 = time.time()
        reader.join()
        hello, samples, _ = box["s"]
        check(
            status == 200 and ctype.startswith("text/plain; version=0.0.4"), "serve /metrics: 200, " + ctype
        )
        ok, out = pu.check_metrics_text(text)
        check(ok, "promtool check metrics passes" + (": " + out if out else ""))
        m = pu.parse_metrics(text)
        labels = m["oomscope_rss_bytes"][0][0]
        check(
            labels.get("rank") == "3"
            and labels.get("local_rank") == "3"
            and labels.get("job") == "train"
            and labels.get("host")
            and labels.get("device") in ("cpu", "cuda:0"),
            "labels: %s" % labels,
        )
        info = m["oomscope_agent_info"][0][0]
        check(
            info["agent"] == "cpp"
            and info["stats_endpoint"] == stats
            and info["backend"] == hello["backend"],
            "agent_info: cpp, its stats socket, the hello's backend (%s)" % info,
        )
        near = [s for s in samples if t0 - 0.35 <= s["_recv"] <= t1 + 0.25]
        value = m["oomscope_rss_bytes"][0][1]
        check(
            any(s.get("rss") == value for s in near),
            "rss %d equals a stats-socket sample within one sample "
            "(%s)" % (value, [s.get("rss") for s in near]),
        )
        present = {f for s in samples for f in s if f not in ("type", "t", "_recv")}
        for metric, field in (
            ("oomscope_allocated_bytes", "allocated"),
            ("oomscope_device_used_bytes", "device_used"),
            ("oomscope_optimizer_step", "step"),
            ("oomscope_ooms_total", "ooms"),
        ):
            check(
                (metric in m) == (field in present),
                "%s served exactly when the stats socket has %s (%s)" % (metric, field, field in present),
            )
        check(
            ("oomscope_device_capacity_bytes" in m) == (hello["total_bytes"] > 0),
            "device capacity served exactly when the hello knows it (%d)" % hello["total_bytes"],
        )
        check("oomscope_distinct_input_shapes" not in m, "no shapes posted: distinct shapes absent")

        # prometheus scraping the C++ agent and a Python agent.
        agents = pu.start_python_agents(1, tmp, job="train")
        prom = pu.start_prometheus(tmp, [metrics, agents[0].metrics])
        pu.wait_targets_up(prom, 2)
        time.sleep(1.5)
        got = pu.query(prom, 'oomscope_rss_bytes{job="train"}')
        check(
            sorted(x[0]["rank"] for x in got) == ["0", "3"] and all(x[1] > 1e6 for x in got),
            "prometheus answers rss for both agents (ranks 0 and 3): %s"
            % [(x[0]["rank"], x[1]) for x in got],
        )
        kinds = sorted(x[0]["agent"] for x in pu.query(prom, "oomscope_agent_info"))
        check(kinds == ["cpp", "python"], "agent_info from both agents: %s" % kinds)
    finally:
        if prom:
            prom.stop()
        pu.stop_all(agents)
        serve.terminate()
        serve.wait()

    if trainer:
        err = open(os.path.join(tmp, "trainer.stderr"), "ab")
        proc = subprocess.Popen(
            [trainer, "--steps", "100000", "--metrics-port", "0", "--job", "demo", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            ep = wait_for_metrics_file(proc, tmp, "trainer")
            text = ""
            deadline = time.time() + 60
            while time.time() < deadline and "oomscope_optimizer_step{" not in text:
                time.sleep(0.3)
                text = pu.scrape(ep)[2]
            ok, out = pu.check_metrics_text(text)
            check(ok, "the demo trainer's /metrics passes promtool" + (": " + out if out else ""))
            m = pu.parse_metrics(text)
            for name in (
                "oomscope_allocated_bytes",
                "oomscope_peak_allocated_bytes",
                "oomscope_ooms_total",
                "oomscope_optimizer_step",
                "oomscope_device_capacity_bytes",
                "oomscope_distinct_input_shapes",
            ):
                check(name in m, "the demo trainer serves %s" % name)
            check(m["oomscope_rss_bytes"][0][0]["job"] == "demo", "with its --job label")
        finally:
            proc.kill()
            proc.wait()
    else:
        print("note: no demo trainer in this build; its /metrics is not checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
