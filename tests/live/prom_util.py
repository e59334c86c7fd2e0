"""Helpers for the Prometheus tests (real processes, loopback only): Python agents serving /metrics, a real
`prometheus` on 127.0.0.1 with a generated config, its HTTP API, promtool, and the agents' stats sockets.

    agents = start_python_agents(4, tmp, job="train")           # [Agent(proc, stats, metrics, name)]
    prom = start_prometheus(tmp, [a.metrics for a in agents])    # scrape every 1 s, honor_labels: true
    wait_targets_up(prom, 4)
    query(prom, 'oomscope_rss_bytes{job="train"}')              # [(labels dict, float value)]
    prom.stop(); stop_all(agents)

With /metrics on, each agent samples every --interval (default 100 ms) even with no client attached; for
many agents on a small machine pass extra=("--interval", "1000").
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import namedtuple

sys.path.insert(0, os.path.dirname(__file__))
from live_util import AGENT_PATH, ROOT  # noqa: E402

ALLOC_TINY = os.path.join(ROOT, "tests", "live", "alloc_tiny.py")
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"

Agent = namedtuple("Agent", "proc stats metrics name")


def have_prometheus():
    return os.path.exists(PROMETHEUS) and os.path.exists(PROMTOOL)


def free_port():
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_python_agents(
    n,
    tmp,
    job=None,
    script=ALLOC_TINY,
    script_args=("--sleep", "0.05"),
    extra=(),
    python=sys.executable,
    rank_env=True,
    timeout=60,
):
    """Starts n `python -m oomscope_agent --port 0 --metrics-port 0` processes wrapping `script`
    (default: the torch-free alloc_tiny.py). With rank_env, process i gets RANK=i, LOCAL_RANK=i%8 and
    WORLD_SIZE=n. Returns [Agent(proc, stats endpoint, metrics endpoint, name)] once all serve."""
    procs = []
    for i in range(n):
        name = "agent%d" % i
        ep_file = os.path.join(tmp, name + ".endpoints")
        if os.path.exists(ep_file):
            os.unlink(ep_file)
        env = dict(os.environ, PYTHONPATH=AGENT_PATH)
        if rank_env:
            env.update(RANK=str(i), LOCAL_RANK=str(i % 8), WORLD_SIZE=str(n))
        cmd = [
            python,
            "-m",
            "oomscope_agent",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--endpoint-file",
            ep_file,
        ]
        if job:
            cmd += ["--job", job]
        cmd += list(extra) + [script] + list(script_args)
        err = open(os.path.join(tmp, name + ".stderr"), "ab")
        procs.append((subprocess.Popen(cmd, env=env, stderr=err, stdout=subprocess.DEVNULL), ep_file, name))
    agents = []
    deadline = time.time() + timeout
    for proc, ep_file, name in procs:
        while not os.path.exists(ep_file):
            if proc.poll() is not None or time.time() > deadline:
                stop_all([Agent(p, "", "", n) for p, _, n in procs])
                raise SystemExit("agent %s did not start (see %s/%s.stderr)" % (name, tmp, name))
            time.sleep(0.05)
        with open(ep_file) as f:
            stats, metrics = f.read().split()[:2]
        agents.append(Agent(proc, stats, metrics, name))
    return agents


def stop_all(agents):
    for a in agents:
        if a.proc.poll() is None:
            a.proc.kill()
    for a in agents:
        a.proc.wait()


def scrape(metrics_endpoint, timeout=10, token=None):
    """GET http://ENDPOINT/metrics: (status, content type, body text)."""
    req = urllib.request.Request("http://%s/metrics" % metrics_endpoint)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def parse_metrics(text):
    """{name: [(labels dict, value)]} from an exposition text (enough for the agents' output)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        name, labels = head, {}
        if "{" in head:
            name, rest = head.split("{", 1)
            labels = _parse_labels(rest.rsplit("}", 1)[0])
        out.setdefault(name, []).append((labels, float(value)))
    return out


def _parse_labels(s):
    labels, i = {}, 0
    while i < len(s):
        eq = s.index("=", i)
        key = s[i:eq].strip().lstrip(",").strip()
        j, val = eq + 2, []
        while s[j] != '"':
            if s[j] == "\\":
                j += 1
                val.append({"n": "\n"}.get(s[j], s[j]))
            else:
                val.append(s[j])
            j += 1
        labels[key] = "".join(val)
        i = j + 1
        while i < len(s) and s[i] in ", ":
            i += 1
    return labels


def promtool(*args, stdin=None):
    """Runs promtool; returns (exit code, stdout + stderr)."""
    r = subprocess.run([PROMTOOL, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


def check_metrics_text(text):
    """`promtool check metrics` on an exposition text: (ok, its output). Lint warnings count as failures."""
    rc, out = promtool("check", "metrics", stdin=text)
    return rc == 0 and not out.strip(), out


class Prometheus:
    def __init__(self, proc, url, folder):
        self.proc, self.url, self.folder = proc, url, folder

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_prometheus(tmp, targets, job="oomscope", interval="1s", rule_files=(), extra_flags=(), timeout=60):
    """Starts `prometheus` on 127.0.0.1:(free port) scraping `targets` (HOST:PORT strings) every `interval`
    with honor_labels: true (so an agent's own `job` label wins), storage in a fresh folder under tmp.
    Returns a Prometheus (url, proc, stop()) once its /-/ready answers."""
    folder = os.path.join(tmp, "prometheus-%d" % time.time_ns())
    os.makedirs(os.path.join(folder, "data"))
    port = free_port()
    rules = "".join("  - %s\n" % json.dumps(os.path.abspath(r)) for r in rule_files)
    config = (
        "global:\n  scrape_interval: %s\n  evaluation_interval: %s\n  scrape_timeout: %s\n"
        "%s"
        "scrape_configs:\n  - job_name: %s\n    honor_labels: true\n    static_configs:\n"
        "      - targets: %s\n"
    ) % (
        interval,
        interval,
        interval,
        ("rule_files:\n" + rules) if rules else "",
        json.dumps(job),
        json.dumps(list(targets)),
    )
    cfg = os.path.join(folder, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write(config)
    log = open(os.path.join(folder, "prometheus.log"), "ab")
    proc = subprocess.Popen(
        [
            PROMETHEUS,
            "--config.file=" + cfg,
            "--storage.tsdb.path=" + os.path.join(folder, "data"),
            "--web.listen-address=127.0.0.1:%d" % port,
            "--log.level=warn",
            *extra_flags,
        ],
        stdout=log,
        stderr=log,
    )
    prom = Prometheus(proc, "http://127.0.0.1:%d" % port, folder)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("prometheus exited (%s); see %s/prometheus.log" % (proc.returncode, folder))
        try:
            with urllib.request.urlopen(prom.url + "/-/ready", timeout=2) as r:
                if r.status == 200:
                    return prom
        except OSError:
            pass
        time.sleep(0.2)
    prom.stop()
    raise SystemExit("prometheus did not become ready in %d s; see %s/prometheus.log" % (timeout, folder))


def api(prom, path, **params):
    """GET prom.url + /api/v1/PATH?params; returns the decoded `data` (raises on an API error)."""
    url = "%s/api/v1/%s?%s" % (prom.url, path, urllib.parse.urlencode(params))
    with urllib.request.urlopen(url, timeout=30) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("prometheus %s: %s" % (path, body))
    return body["data"]


def query(prom, expr):
    """An instant query: [(labels dict, float value)]."""
    data = api(prom, "query", query=expr)
    return [(x["metric"], float(x["value"][1])) for x in data.get("result", [])]


def targets(prom):
    """[(scrape URL, health)] of the active targets."""
    return [(t["scrapeUrl"], t["health"]) for t in api(prom, "targets")["activeTargets"]]


def wait_targets_up(prom, n, timeout=60):
    """Waits until at least n targets are up and each has been scraped; returns the targets."""
    deadline = time.time() + timeout
    got = []
    while time.time() < deadline:
        got = targets(prom)
        if sum(1 for _, h in got if h == "up") >= n:
            return got
        time.sleep(0.3)
    raise SystemExit(
        "FAILED: %d of %d targets up after %d s: %s" % (sum(1 for _, h in got if h == "up"), n, timeout, got)
    )


def read_stats(endpoint, seconds=1.0, token=None):
    """Reads an agent's stats socket (protocol v1) for `seconds`: (hello, [samples], [other messages]),
    each sample with "_recv" (time.time() when it arrived)."""
    host, port = endpoint.rsplit(":", 1)
    sock = socket.create_connection((host.strip("[]"), int(port)), timeout=5)
    if token:
        sock.sendall((json.dumps({"type": "auth", "token": token}) + "\n").encode())
    buf, hello, samples, other = b"", None, [], []
    end = time.time() + seconds
    sock.settimeout(0.2)
    while time.time() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if msg["type"] == "hello":
                hello = msg
            elif msg["type"] == "sample":
                msg["_recv"] = time.time()
                samples.append(msg)
            else:
                other.append(msg)
    sock.close()
    return hello, samples, other
