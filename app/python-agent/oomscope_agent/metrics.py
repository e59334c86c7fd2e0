"""Prometheus /metrics for the agent: the latest sample in the text exposition format 0.0.4.

Served from its own daemon thread by the standard library's http.server. When `prometheus_client` is
importable, the page is rendered by it (a custom collector over the same figures); without it, by the
small renderer here. Either way a figure the agent does not have is left out, never exported as 0.

Binds 127.0.0.1 by default. Any other address needs the agent's token, which the scraper sends as
`Authorization: Bearer TOKEN` (Prometheus: `authorization: {credentials: TOKEN}`); a request without it
gets 401. Tokens are compared in constant time.
"""

import hmac
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .server import _is_loopback

VERSION = "0.1.0"

# (metric, sample field, type, help). Gauges in bytes unless the name says otherwise. These families, and the
# ones families() adds, are the C++ agent's (core/live/protocol/metric_names.h); tests/core/live/
# metric_names_test.cpp fails when a name, type or help text here differs from that table.
SAMPLE_METRICS = (
    ("oomscope_allocated_bytes", "allocated", "gauge", "Bytes the framework's allocator has handed out."),
    ("oomscope_reserved_bytes", "reserved", "gauge", "Bytes the caching allocator holds from the device."),
    ("oomscope_active_bytes", "active", "gauge", "Bytes in active allocator blocks."),
    (
        "oomscope_inactive_split_bytes",
        "inactive_split",
        "gauge",
        "Bytes in inactive split blocks (fragmentation).",
    ),
    ("oomscope_peak_allocated_bytes", "peak_allocated", "gauge", "Peak of allocated bytes."),
    (
        "oomscope_device_used_bytes",
        "device_used",
        "gauge",
        "Device memory the driver reports in use for the process or device.",
    ),
    ("oomscope_driver_bytes", "driver", "gauge", "Bytes the MPS driver has allocated for the process."),
    (
        "oomscope_recommended_max_bytes",
        "recommended_max",
        "gauge",
        "The MPS recommended maximum working set.",
    ),
    ("oomscope_rss_bytes", "rss", "gauge", "Resident set size of the process."),
    ("oomscope_ooms_total", "ooms", "counter", "Out-of-memory errors the allocator counted."),
    (
        "oomscope_alloc_retries_total",
        "alloc_retries",
        "counter",
        "Allocations retried after freeing cached blocks.",
    ),
    ("oomscope_optimizer_step", "step", "gauge", "The optimizer step the trainer reached."),
)


def escape_label(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def escape_help(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n")


def labels_text(labels):
    return ",".join('%s="%s"' % (k, escape_label(v)) for k, v in labels)


def families(agent):
    """[(name, type, help, [(extra labels, value)])] for the agent's state now; families without any
    value are left out. Common labels are added by the renderers."""
    snap = agent.metrics_snapshot()
    sample = snap["sample"] or {}
    out = []
    for name, field, kind, text in SAMPLE_METRICS:
        if field in sample:
            out.append((name, kind, text, [((), sample[field])]))
        if name == "oomscope_rss_bytes" and snap["total_bytes"] > 0:
            out.append(
                (
                    "oomscope_device_capacity_bytes",
                    "gauge",
                    "Device memory in total (the hello's total_bytes).",
                    [((), snap["total_bytes"])],
                )
            )
    out.append(
        ("oomscope_splits_total", "counter", "Split events the trainer posted.", [((), snap["splits"])])
    )
    out.append(
        ("oomscope_restarts_total", "counter", "Restart events the trainer posted.", [((), snap["restarts"])])
    )
    out.append(
        (
            "oomscope_dropped_samples_total",
            "counter",
            "Lines the agent dropped because a client's queue was full.",
            [((), snap["dropped"])],
        )
    )
    if snap["distinct_shapes"] is not None:
        out.append(
            (
                "oomscope_distinct_input_shapes",
                "gauge",
                "Distinct padded batch shapes seen so far.",
                [((), snap["distinct_shapes"])],
            )
        )
    events = dict.fromkeys(
        ("oom", "split", "checkpoint", "restart"), 0
    )  # there from the start, for increase()
    events.update(snap["events"])
    out.append(
        (
            "oomscope_events_total",
            "counter",
            "Events the trainer posted, by kind.",
            [((("kind", k),), v) for k, v in sorted(events.items())],
        )
    )
    out.append(
        (
            "oomscope_agent_info",
            "gauge",
            "The agent serving these figures (value is always 1).",
            [
                (
                    (
                        ("agent", "python"),
                        ("version", VERSION),
                        ("backend", snap["backend"]),
                        ("stats_endpoint", snap["stats_endpoint"]),
                    ),
                    1,
                )
            ],
        )
    )
    return out


def render(agent):
    """The exposition text (format 0.0.4) without prometheus_client."""
    common = agent.metric_labels()
    lines = []
    for name, kind, text, values in families(agent):
        lines.append("# HELP %s %s" % (name, escape_help(text)))
        lines.append("# TYPE %s %s" % (name, kind))
        for extra, value in values:
            lines.append("%s{%s} %d" % (name, labels_text(tuple(common) + tuple(extra)), int(value)))
    return ("\n".join(lines) + "\n").encode()


class _Collector:
    """prometheus_client custom collector over families()."""

    def __init__(self, agent):
        self.agent = agent

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        common = self.agent.metric_labels()
        for name, kind, text, values in families(self.agent):
            keys = [k for k, _ in common] + [k for k, _ in values[0][0]]
            if kind == "counter":
                fam = CounterMetricFamily(name[: -len("_total")], text, labels=keys)
            else:
                fam = GaugeMetricFamily(name, text, labels=keys)
            for extra, value in values:
                fam.add_metric([str(v) for _, v in common] + [str(v) for _, v in extra], int(value))
            yield fam


def _client_renderer(agent):
    """A render function using prometheus_client, or None when it is not importable."""
    if os.environ.get("OOMSCOPE_NO_PROMETHEUS_CLIENT"):
        return None
    try:
        from prometheus_client import CollectorRegistry
        from prometheus_client.exposition import generate_latest
    except Exception:
        return None
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(agent))
    return lambda: generate_latest(registry)


class MetricsServer:
    def __init__(self, agent, port, host="127.0.0.1", token=None):
        if not _is_loopback(host) and not token:
            raise ValueError(
                "serving /metrics on %s (not loopback) needs a token (--token or OOMSCOPE_TOKEN)" % host
            )
        render_fn = _client_renderer(agent) or (lambda: render(agent))
        self.renderer = "prometheus_client" if _client_renderer(agent) else "builtin"
        expected = ("Bearer " + token).encode() if token else None

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                if expected is not None:
                    got = (self.headers.get("Authorization") or "").encode()
                    if not hmac.compare_digest(got, expected):
                        return self._reply(
                            401, b"unauthorized: send Authorization: Bearer TOKEN\n", "text/plain"
                        )
                path = self.path.split("?", 1)[0]
                if path != "/metrics":
                    return self._reply(404, b"not found: the figures are at /metrics\n", "text/plain")
                try:
                    body = render_fn()
                except Exception as e:  # never take the trainer down; say what failed
                    return self._reply(500, ("cannot render: %r\n" % (e,)).encode(), "text/plain")
                self._reply(200, body, "text/plain; version=0.0.4; charset=utf-8")

            def _reply(self, code, body, ctype):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        family = socket.AF_INET6 if ":" in host else socket.AF_INET

        class Server(ThreadingHTTPServer):
            address_family = family
            daemon_threads = True
            allow_reuse_address = True

        self._httpd = Server((host, int(port or 0)), Handler)
        self.port = self._httpd.server_address[1]
        self.endpoint = ("[%s]:%d" if family == socket.AF_INET6 else "%s:%d") % (host, self.port)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.5},
            name="oomscope-metrics",
            daemon=True,
        )

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        try:
            self._httpd.shutdown()
            self._httpd.server_close()
        except Exception:
            pass
