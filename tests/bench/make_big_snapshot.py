#!/usr/bin/env python3
"""Makes a big PyTorch allocator snapshot by scaling a real one up while keeping its structure.

usage: make_big_snapshot.py SOURCE.pickle OUT.pickle TARGET_BYTES

The source is read with an Unpickler that refuses every global (snapshots are plain data). The output is
written opcode by opcode the way CPython's pickler writes protocol 4 (FRAMEs, MEMOIZE on every container
and string, batches of 1000 items, memo references for repeated strings and for shared frames lists), so
the scaled file has the same shape as a real one: the source's segments and trace repeated K times, each
copy's addresses shifted past the previous copy's and its times shifted past the previous copy's end,
frames lists shared across copies exactly as the source shares them within itself. K is chosen so the file
is about TARGET_BYTES. Only the standard library is used.
"""
import io
import pickle
import struct
import sys


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing persistent id")


class Writer:
    """A protocol-4 pickle writer for dict/list/tuple/str/int/float/bool/None with CPython's memo rules."""

    def __init__(self, out):
        self.out = out
        self.buf = io.BytesIO()
        self.memo = {}  # id(obj) or ('s', str) -> index
        self.count = 0
        self.out.write(b"\x80\x04")

    def flush_frame(self, force=False):
        data = self.buf.getvalue()
        if data and (force or len(data) >= 65536):
            self.out.write(b"\x95" + struct.pack("<Q", len(data)) + data)
            self.buf = io.BytesIO()

    def w(self, b):
        self.buf.write(b)

    def memoize(self, key=None):
        """key: remember the index for later references (strings, shared source objects); None: never
        referenced."""
        if key is not None:
            self.memo[key] = self.count
        self.count += 1
        self.w(b"\x94")

    def get(self, idx):
        self.w(b"h" + bytes([idx]) if idx < 256 else b"j" + struct.pack("<I", idx))

    def obj(self, v, share=None):
        """share: a key under which a container is memoized and reused (shared frames lists and frame
        dicts)."""
        if v is None:
            self.w(b"N")
        elif v is True:
            self.w(b"\x88")
        elif v is False:
            self.w(b"\x89")
        elif isinstance(v, int):
            if 0 <= v < 256:
                self.w(b"K" + bytes([v]))
            elif 0 <= v < 65536:
                self.w(b"M" + struct.pack("<H", v))
            elif -(1 << 31) <= v < (1 << 31):
                self.w(b"J" + struct.pack("<i", v))
            else:
                n = (v.bit_length() + 8) // 8
                self.w(b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True))
        elif isinstance(v, float):
            self.w(b"G" + struct.pack(">d", v))
        elif isinstance(v, str):
            key = ("s", v)
            if key in self.memo:
                self.get(self.memo[key])
                return
            b = v.encode("utf-8", "surrogatepass")
            self.w((b"\x8c" + bytes([len(b)]) if len(b) < 256 else b"X" + struct.pack("<I", len(b))) + b)
            self.memoize(key)
        elif isinstance(v, tuple):
            for x in v:
                self.obj(x)
            if len(v) != 2:
                raise TypeError("only pairs")
            self.w(b"\x86")
            self.memoize()
        elif isinstance(v, list):
            if share is not None and share in self.memo:
                self.get(self.memo[share])
                return
            self.w(b"]")
            self.memoize(share)
            self.items(v, frames=share is not None)
        elif isinstance(v, dict):
            if share is not None and share in self.memo:
                self.get(self.memo[share])
                return
            self.w(b"}")
            self.memoize(share)
            pairs = list(v.items())
            for i in range(0, len(pairs), 1000):
                self.w(b"(")
                for k, x in pairs[i : i + 1000]:
                    self.obj(k)
                    self.value(k, x)
                self.w(b"u")
        else:
            raise TypeError(type(v))
        self.flush_frame()

    def value(self, key, x):
        if key == "frames" and isinstance(x, list):
            self.obj(x, share=("src", id(x)))
        else:
            self.obj(x)

    def items(self, seq, frames=False):
        """frames: the items are the source's frame dicts, shared by identity like CPython does."""

        def one(x):
            self.obj(x, share=("src", id(x)) if frames and isinstance(x, dict) else None)

        if len(seq) == 1:
            one(seq[0])
            self.w(b"a")
            return
        for i in range(0, len(seq), 1000):
            self.w(b"(")
            for x in seq[i : i + 1000]:
                one(x)
            self.w(b"e")

    def stream_list(self, make_items):
        """A list produced lazily (the scaled segments and trace), batched like items()."""
        self.w(b"]")
        self.memoize()
        batch = []

        def emit(items):
            if len(items) == 1:
                self.obj(items[0])
                self.w(b"a")
                return
            self.w(b"(")
            for y in items:
                self.obj(y)
            self.w(b"e")

        for x in make_items():
            batch.append(x)
            if len(batch) == 1000:
                emit(batch)
                batch = []
        if batch:
            emit(batch)

    def stop(self):
        self.w(b".")
        self.flush_frame(force=True)


def main() -> int:
    src, out_path, target = sys.argv[1], sys.argv[2], int(float(sys.argv[3]))
    import os

    with open(src, "rb") as f:
        snap = DataOnly(f).load()
    src_size = os.path.getsize(src)
    copies = max(1, round(target / src_size))
    segs = snap["segments"]
    lo = min(s["address"] for s in segs) if segs else 0
    hi = max(s["address"] + s["total_size"] for s in segs) if segs else 0
    for trace in snap.get("device_traces", []):
        for e in trace:
            if e.get("action") != "oom":
                hi = max(hi, e.get("addr", 0) + e.get("size", 0))
    shift = ((hi - lo) // (1 << 30) + 1) << 30
    times = [e["time_us"] for t in snap.get("device_traces", []) for e in t if "time_us" in e]
    span = (max(times) - min(times) + 1000) if times else 0

    def shifted(d, k):
        out = dict(d)
        if "address" in out and out["address"] is not None:
            out["address"] += k * shift
        if "addr" in out and out.get("action") not in ("oom", "snapshot"):
            out["addr"] += k * shift
        if "time_us" in out:
            out["time_us"] += k * span
        if "blocks" in out:
            out["blocks"] = [shifted(b, k) for b in out["blocks"]]
        if "history" in out:
            out["history"] = [shifted(h, k) for h in out["history"]]
        return out

    with open(out_path, "wb") as f:
        w = Writer(f)
        w.w(b"}")
        w.memoize()
        w.w(b"(")
        w.obj("segments")
        w.stream_list(lambda: (shifted(s, k) for k in range(copies) for s in segs))
        w.obj("device_traces")
        w.w(b"]")
        w.memoize()
        w.w(b"(")
        for trace in snap.get("device_traces", []):
            w.stream_list(lambda trace=trace: (shifted(e, k) for k in range(copies) for e in trace))
        w.w(b"e")
        for key, value in snap.items():
            if key not in ("segments", "device_traces"):
                w.obj(key)
                w.obj(value)
        w.w(b"u")
        w.stop()
    print(f"{out_path}: {os.path.getsize(out_path)} bytes, {copies} copies of {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
