"""Writes a live recording (docs/live-protocol.md, "Recording file"; core/live/client/recording_format.h)
from Python, so that a test or a fixture script can hand oomscope a series it made itself: gzip, the magic
line, then records (kind byte, varint rank, body; samples delta-coded per rank and field, zigzag varints).

The gzip header carries no file name and mtime 0, so the same records give the same bytes every time.
Users: tests/live/test_forecast_port.py and tests/data/tools/make_recordings.py (the fixtures in
tests/data/live/). tests/data/tools/recording_figures.py reads recordings without it, on purpose."""

import gzip
import json

MAGIC = b"OOMSCOPE-LIVE-RECORDING 1\n"
# The sample fields in wire order (core/live/protocol/protocol.h, kFieldNames).
FIELDS = (
    "step",
    "micro",
    "allocated",
    "reserved",
    "active",
    "peak_allocated",
    "inactive_split",
    "alloc_retries",
    "ooms",
    "driver",
    "recommended_max",
    "device_used",
    "rss",
)
ENDPOINT, LINE, SAMPLE, DISCONNECTED, CONNECTED, BAD_LINE = 1, 2, 3, 4, 5, 6
MASK64 = (1 << 64) - 1


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v):
    v = ((v + (1 << 63)) & MASK64) - (1 << 63)  # wrap into int64, as the C++ side does
    return ((v << 1) ^ (v >> 63)) & MASK64


class RecordingWriter:
    def __init__(self, path):
        self._file = open(path, "wb")
        self._f = gzip.GzipFile(filename="", mode="wb", fileobj=self._file, mtime=0)
        self._f.write(MAGIC)
        self._prev = {}  # rank -> (t, [values])

    def _text(self, kind, rank, t, text):
        body = text.encode()
        self._f.write(bytes([kind]) + varint(rank) + varint(t) + varint(len(body)) + body)

    def endpoint(self, rank, text):
        self._text(ENDPOINT, rank, 0, text)

    def connected(self, rank, t):
        self._text(CONNECTED, rank, t, "")

    def disconnected(self, rank, t, reason):
        self._text(DISCONNECTED, rank, t, reason)

    def bad_line(self, rank, t, error):
        self._text(BAD_LINE, rank, t, error)

    def line(self, rank, obj):
        """A protocol line (hello, event, shapes) as the agent sent it."""
        body = json.dumps(obj, separators=(",", ":")).encode()
        self._f.write(bytes([LINE]) + varint(rank) + varint(len(body)) + body)

    def sample(self, rank, s):
        """s: {"t": unix ns, field: value, ...}; fields absent or None are not sent."""
        t0, prev = self._prev.get(rank, (0, [0] * len(FIELDS)))
        mask = 0
        values = b""
        for i, name in enumerate(FIELDS):
            if s.get(name) is None:
                continue
            mask |= 1 << i
            values += varint(zigzag(s[name] - prev[i]))
            prev[i] = s[name]
        self._f.write(bytes([SAMPLE]) + varint(rank) + varint(zigzag(s["t"] - t0)) + varint(mask) + values)
        self._prev[rank] = (s["t"], prev)

    def close(self):
        self._f.close()
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
