"""The agent's socket server: protocol v1 (newline-delimited JSON), one daemon thread.

Serves on 127.0.0.1 by default or a Unix socket created with mode 0600; any other address needs a token
that each client sends first ({"type":"auth"}), compared in constant time; a wrong token closes the
connection and says so on stderr. Writes never block the trainer: each client has a bounded queue and a
line that does not fit is dropped and counted.
"""

import collections
import hmac
import json
import os
import selectors
import socket
import sys
import threading
import time

from . import sources

MAX_QUEUE_BYTES = 256 * 1024
MAX_PENDING = 1024
AUTH_TIMEOUT_S = 5.0


def _log(msg):
    try:
        sys.stderr.write("oomscope-agent: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


def _is_loopback(host):
    return host in ("localhost", "::1") or host.startswith("127.")


class _Client:
    __slots__ = ("sock", "authed", "out", "inbuf", "interval", "next_due", "accepted", "hello_sent")

    def __init__(self, sock, authed, interval):
        self.sock = sock
        self.authed = authed
        self.out = bytearray()
        self.inbuf = bytearray()
        self.interval = interval
        self.next_due = 0.0
        self.accepted = time.monotonic()
        self.hello_sent = False


class Agent:
    def __init__(
        self,
        port=None,
        unix=None,
        host="127.0.0.1",
        token=None,
        interval_ms=100,
        command=None,
        rank=None,
        world_size=None,
        metrics_port=None,
        metrics_host="127.0.0.1",
        job=None,
        local_rank=None,
        capacity_bytes=None,
    ):
        if token is None:
            token = os.environ.get("OOMSCOPE_TOKEN") or None
        if unix is None and not _is_loopback(host) and not token:
            raise ValueError(
                "listening on %s (not loopback) needs a token (--token or OOMSCOPE_TOKEN)" % host
            )
        self.token = token
        self.interval = max(0.001, interval_ms / 1000.0)
        self.command = list(command if command is not None else sys.argv)
        self.rank = int(rank if rank is not None else os.environ.get("RANK", os.environ.get("LOCAL_RANK", 0)))
        self.world_size = int(world_size if world_size is not None else os.environ.get("WORLD_SIZE", 1))
        if local_rank is None:
            local_rank = os.environ.get("LOCAL_RANK")
        if local_rank is None and self.world_size == 1:
            local_rank = self.rank  # a single process: its local rank is its rank
        self.local_rank = None if local_rank is None else int(local_rank)
        self.job = job if job is not None else (os.environ.get("OOMSCOPE_JOB") or None)
        self.latest = None  # the last sample taken (a dict), for /metrics
        # The limit the trainer runs under when the device reports none (a CPU run with its own budget
        # check): sent as the hello's total_bytes, so that the forecast has a limit.
        self.capacity_bytes = int(capacity_bytes) if capacity_bytes else None
        self.user_memory = {}  # figures the trainer measures itself (memory()): added to each sample
        self.guard = None  # guard.ForecastGuard: --checkpoint-before-oom
        self._events_by_kind = {}
        self._hello_info = None  # (backend, device label, total bytes) of the last hello
        self.step_value = None
        self.micro_value = None
        self.dropped = 0
        self.samples = 0
        self.auth_failures = 0
        self.thread_cpu = 0.0  # CPU seconds the agent thread used (overhead measurement)
        self._pending = []
        self._lock = threading.Lock()
        self._shapes = None  # set by hooks.ShapeTracker
        self._shapes_sent = -1
        self._oom_seen = None
        self._hello_key = None
        self._recent_events = collections.deque(maxlen=64)
        self._hello_line = None
        self._stop = False
        self._unix = unix
        if unix is not None:
            try:
                if os.path.exists(unix):
                    os.unlink(unix)
            except OSError:
                pass
            self._listen = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            try:
                self._listen.bind(unix)
            finally:
                os.umask(old)
            os.chmod(unix, 0o600)
            self.endpoint = "unix:" + unix
        else:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self._listen = socket.socket(family, socket.SOCK_STREAM)
            self._listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._listen.bind((host, int(port or 0)))
            self.port = self._listen.getsockname()[1]
            self.endpoint = "%s:%d" % (host, self.port)
        self._listen.listen(64)
        self._listen.setblocking(False)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name="oomscope-agent", daemon=True)
        self.metrics = None
        self._own_next = 0.0  # with /metrics on, the agent samples every interval even without clients
        if metrics_port is not None:
            from .metrics import MetricsServer

            try:
                self.metrics = MetricsServer(self, metrics_port, host=metrics_host, token=token)
            except BaseException:
                self._listen.close()
                raise

    # -- called from the trainer: cheap, never raise ------------------------------------------------
    def start(self):
        self._thread.start()
        if self.metrics is not None:
            self.metrics.start()
        return self

    # -- /metrics (called from the metrics thread) ----------------------------------------------------
    def metrics_snapshot(self):
        info = self._hello_info
        if info is None:
            backend, _, total, _ = sources.backend_info()
            info = (backend, sources.device_label(backend), total)
        with self._lock:
            events = dict(self._events_by_kind)
        tracker = self._shapes
        return {
            "sample": self.latest,
            "backend": info[0],
            "total_bytes": info[2],
            "dropped": self.dropped,
            "splits": events.get("split", 0),
            "restarts": events.get("restart", 0),
            "events": events,
            "distinct_shapes": tracker.distinct if tracker is not None and tracker.observed else None,
            "stats_endpoint": self.endpoint,
        }

    def metric_labels(self):
        """The labels on every series: rank, local_rank (when known), host, device, job (when known)."""
        info = self._hello_info
        device = info[1] if info is not None else sources.device_label(sources.backend_info()[0])
        labels = [("rank", str(self.rank))]
        if self.local_rank is not None:
            labels.append(("local_rank", str(self.local_rank)))
        labels += [("host", socket.gethostname()), ("device", device)]
        if self.job:
            labels.append(("job", self.job))
        return labels

    def post(self, obj):
        try:
            line = (json.dumps(obj, separators=(",", ":"), default=str) + "\n").encode()
        except Exception:
            return
        with self._lock:
            if obj.get("type") == "event":
                kind = str(obj.get("kind"))
                if kind == "restart" and self.guard is not None:
                    self.guard.on_restart(int(obj.get("t") or time.time_ns()))
                if kind in self._events_by_kind or len(self._events_by_kind) < 32:
                    self._events_by_kind[kind] = self._events_by_kind.get(kind, 0) + 1
                self._recent_events.append(line)  # repeated to clients that attach later
            if len(self._pending) < MAX_PENDING:
                self._pending.append(line)
            else:
                self.dropped += 1
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def stop(self):
        self._stop = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2)

    # -- the agent thread ----------------------------------------------------------------------------
    def _hello(self):
        backend, device, total, framework = sources.backend_info()
        if not total and self.capacity_bytes:
            total = self.capacity_bytes
            device = device or "budget set by the trainer"
        self._hello_info = (backend, sources.device_label(backend), total)
        return {
            "type": "hello",
            "protocol": 1,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "rank": self.rank,
            "world_size": self.world_size,
            "backend": backend,
            "device": device,
            "total_bytes": total,
            "framework": framework,
            "command": self.command,
        }

    def _sample(self):
        s = {"type": "sample", "t": time.time_ns()}
        if self.step_value is not None:
            s["step"] = self.step_value
        if self.micro_value is not None:
            s["micro"] = self.micro_value
        sources.fill_sample(s)
        for k, v in list(self.user_memory.items()):
            if k not in s:
                s[k] = v
        ooms = s.get("ooms")
        if ooms is not None:
            if self._oom_seen is not None and ooms > self._oom_seen:
                from . import hooks

                hooks.on_oom_counter(self, ooms)
            self._oom_seen = ooms
        self.samples += 1
        self.latest = s
        guard = self.guard
        if guard is not None:
            try:
                info = self._hello_info
                guard.on_sample(s, info[2] if info is not None else self.capacity_bytes)
            except Exception as e:
                _log("the forecast stopped: %r" % (e,))
                self.guard = None
        return (json.dumps(s, separators=(",", ":")) + "\n").encode()

    def _queue(self, c, line):
        if len(c.out) + len(line) > MAX_QUEUE_BYTES:
            self.dropped += 1
        else:
            c.out += line

    def _run(self):
        try:
            self._loop()
        except Exception as e:  # the trainer goes on without us
            _log("stopped: %r" % (e,))

    def _loop(self):
        t0 = time.thread_time()
        sel = selectors.DefaultSelector()
        sel.register(self._listen, selectors.EVENT_READ, None)
        sel.register(self._wake_r, selectors.EVENT_READ, None)
        clients = {}
        while not self._stop:
            now = time.monotonic()
            due = [c for c in clients.values() if c.hello_sent and now >= c.next_due]
            # With /metrics or the forecast guard on, the agent samples every interval even without clients.
            own = (self.metrics is not None or self.guard is not None) and now >= self._own_next
            if due or own:
                self._own_next = now + self.interval  # a client's sample is also the one /metrics serves
                key = (sources.backend_key(), self.capacity_bytes)
                if key != self._hello_key:  # the script imported its framework or initialised the device
                    self._hello_key = key
                    self._hello_line = None
                    self._hello_bytes()  # also what /metrics labels with
                    for c in clients.values():
                        if c.hello_sent:
                            self._queue(c, self._hello_bytes())
                line = self._sample()
                for c in due:
                    self._queue(c, line)
                    c.next_due = now + c.interval
            with self._lock:
                pending, self._pending = self._pending, []
            tracker = self._shapes
            if tracker is not None and tracker.distinct != self._shapes_sent:
                self._shapes_sent = tracker.distinct
                msg = {
                    "type": "shapes",
                    "t": time.time_ns(),
                    "distinct": tracker.distinct,
                    "last": tracker.last,
                }
                fresh = tracker.take_fresh()
                if fresh:
                    msg["new"] = fresh
                pending.append((json.dumps(msg, separators=(",", ":")) + "\n").encode())
            for line in pending:
                for c in clients.values():
                    if c.hello_sent:
                        self._queue(c, line)
            for c in list(clients.values()):
                if c.out:
                    self._flush(sel, clients, c)
                if self.token and not c.authed and now - c.accepted > AUTH_TIMEOUT_S:
                    self.auth_failures += 1
                    _log("closed a connection: no auth within %g s" % AUTH_TIMEOUT_S)
                    self._close(sel, clients, c)
            waits = [c.next_due for c in clients.values() if c.hello_sent]
            if self.metrics is not None or self.guard is not None:
                waits.append(self._own_next)
            timeout = max(0.0, min(waits) - time.monotonic()) if waits else 0.5
            self.thread_cpu = time.thread_time() - t0
            for key, mask in sel.select(min(timeout, 0.5)):
                obj = key.fileobj
                if obj is self._listen:
                    self._accept(sel, clients)
                elif obj == self._wake_r:
                    try:
                        while os.read(self._wake_r, 4096):
                            pass
                    except (BlockingIOError, OSError):
                        pass
                else:
                    c = clients.get(obj.fileno())
                    if c is None:
                        continue
                    if mask & selectors.EVENT_READ:
                        self._read(sel, clients, c)
                    if mask & selectors.EVENT_WRITE and c.sock.fileno() in clients:
                        self._flush(sel, clients, c)
        for c in list(clients.values()):
            self._close(sel, clients, c)
        if self.metrics is not None:
            self.metrics.stop()
        self._listen.close()
        if self._unix:
            try:
                os.unlink(self._unix)
            except OSError:
                pass

    def _accept(self, sel, clients):
        while True:
            try:
                sock, _ = self._listen.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            sock.setblocking(False)
            c = _Client(sock, authed=not self.token, interval=self.interval)
            clients[sock.fileno()] = c
            sel.register(sock, selectors.EVENT_READ, None)
            if c.authed:
                self._send_hello(c)

    def _hello_bytes(self):
        if self._hello_line is None:
            self._hello_line = (json.dumps(self._hello(), separators=(",", ":"), default=str) + "\n").encode()
        return self._hello_line

    def _send_hello(self, c):
        c.out += self._hello_bytes()
        tracker = self._shapes
        if tracker is not None and tracker.distinct:
            try:
                seen = list(tracker.seen)[:4096]
                msg = {
                    "type": "shapes",
                    "t": time.time_ns(),
                    "distinct": tracker.distinct,
                    "last": tracker.last,
                    "new": [list(s) for s in seen],
                }
                c.out += (json.dumps(msg, separators=(",", ":")) + "\n").encode()
            except Exception:
                pass
        with self._lock:
            for line in self._recent_events:
                c.out += line
        c.hello_sent = True
        c.next_due = time.monotonic()

    def _read(self, sel, clients, c):
        try:
            data = c.sock.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(sel, clients, c)
            return
        c.inbuf += data
        if len(c.inbuf) > 65536 and b"\n" not in c.inbuf:
            if not c.authed:
                self.auth_failures += 1
                _log("closed a connection: oversized first line instead of an auth")
            self._close(sel, clients, c)
            return
        while b"\n" in c.inbuf:
            line, _, rest = bytes(c.inbuf).partition(b"\n")
            c.inbuf = bytearray(rest)
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            if not c.authed:
                ok = (
                    isinstance(msg, dict)
                    and msg.get("type") == "auth"
                    and isinstance(msg.get("token"), str)
                    and hmac.compare_digest(msg["token"].encode(), self.token.encode())
                )
                if not ok:
                    self.auth_failures += 1
                    _log(
                        "closed a connection: %s"
                        % (
                            "wrong token"
                            if isinstance(msg, dict) and msg.get("type") == "auth"
                            else "its first line was not an auth"
                        )
                    )
                    self._close(sel, clients, c)
                    return
                c.authed = True
                self._send_hello(c)
                self._flush(sel, clients, c)
                continue
            if isinstance(msg, dict) and msg.get("type") == "subscribe":
                ms = msg.get("interval_ms")
                if isinstance(ms, int) and 1 <= ms <= 3600000:
                    c.interval = max(0.01, ms / 1000.0)

    def _flush(self, sel, clients, c):
        try:
            n = c.sock.send(c.out)
            del c.out[:n]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._close(sel, clients, c)
            return
        try:
            sel.modify(c.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0), None)
        except (KeyError, ValueError, OSError):
            pass

    def _close(self, sel, clients, c):
        fd = c.sock.fileno()
        try:
            sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        clients.pop(fd, None)
        try:
            c.sock.close()
        except OSError:
            pass
