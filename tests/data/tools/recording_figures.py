#!/usr/bin/env python3
"""An independent reading of a live recording (docs/live-protocol.md, "Recording file"): decodes the gzip
stream and its records here, without oomscope or recording_writer.py, and gives per rank index the figures
`oomscope-cli diff A B --json -` reports for it, so tests/cli/test_recording_diff.py can hold one against the
other.

usage: recording_figures.py FILE.oomlive     (prints the figures as JSON)
"""
import gzip
import json
import re
import sys

MAGIC = b"OOMSCOPE-LIVE-RECORDING 1\n"
NAMES = [
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
]
UNITS = {"TiB": 1 << 40, "GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10, "bytes": 1, "B": 1}


def read_varint(data, pos):
    value, shift = 0, 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def signed(v):  # zigzag back to int64
    return (v >> 1) ^ -(v & 1)


def requested(message):
    m = re.search(r"Tried to allocate ([0-9.]+) ?(TiB|GiB|MiB|KiB|bytes|B)", message)
    return round(float(m.group(1)) * UNITS[m.group(2)]) if m else None


def read(path):
    """{rank index: figures}"""
    data = gzip.decompress(open(path, "rb").read())
    if not data.startswith(MAGIC):
        raise SystemExit(f"{path}: not a recording")
    pos = len(MAGIC)
    ranks = {}
    prev = {}  # rank -> [t, values...]

    def rank(r):
        return ranks.setdefault(
            r,
            {
                "hello_rank": None,
                "samples": 0,
                "alloc": None,
                "reserved": None,
                "step_at_alloc": None,
                "step_at_reserved": None,
                "last_step": None,
                "by_step": {},
                "ooms": [],
            },
        )

    while pos < len(data):
        kind = data[pos]
        r, pos = read_varint(data, pos + 1)
        if kind in (1, 4, 5, 6):  # endpoint, disconnected, connected, bad line: t, length, text
            _, pos = read_varint(data, pos)
            n, pos = read_varint(data, pos)
            pos += n
        elif kind == 2:
            n, pos = read_varint(data, pos)
            line = json.loads(data[pos : pos + n])
            pos += n
            if line.get("type") == "hello":
                rank(r)["hello_rank"] = line.get("rank")
            elif line.get("type") == "event" and line.get("kind") == "oom":
                f = rank(r)
                step = line["step"] if "step" in line else f["last_step"]
                f["ooms"].append({"step": step, "requested_bytes": requested(line.get("message", ""))})
        elif kind == 3:
            p = prev.setdefault(r, [0] * (1 + len(NAMES)))
            dt, pos = read_varint(data, pos)
            p[0] += signed(dt)
            mask, pos = read_varint(data, pos)
            s = {}
            for i, name in enumerate(NAMES):
                if mask >> i & 1:
                    d, pos = read_varint(data, pos)
                    p[i + 1] += signed(d)
                    s[name] = p[i + 1]
            f = rank(r)
            f["samples"] += 1
            step = s.get("step")
            for a in ("allocated", "peak_allocated"):
                if a in s and (f["alloc"] is None or s[a] > f["alloc"]):
                    f["alloc"], f["step_at_alloc"] = s[a], step
            if "reserved" in s and (f["reserved"] is None or s["reserved"] > f["reserved"]):
                f["reserved"], f["step_at_reserved"] = s["reserved"], step
            if step is not None:
                f["last_step"] = step
                cur = f["by_step"].get(step)
                if "allocated" in s:
                    f["by_step"][step] = s["allocated"] if cur is None else max(cur, s["allocated"])
                else:
                    f["by_step"][step] = cur
        else:
            raise SystemExit(f"{path}: unknown record kind {kind}")
    return {r: f for r, f in ranks.items() if f["samples"] > 0}


if __name__ == "__main__":
    figures = read(sys.argv[1])
    print(
        json.dumps({r: {k: v for k, v in f.items() if k != "by_step"} for r, f in figures.items()}, indent=1)
    )
