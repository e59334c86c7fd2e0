#!/usr/bin/env python3
"""Makes a big Kineto trace from a real one for `oomscope-cli bench kineto --scale-to`: the source's
traceEvents repeated until the text reaches SIZE bytes, each copy shifted later in time by the source's span
(so the memory series runs on as in a long profile) and its [memory] events' addresses moved to a range of
their own (so allocations and frees still pair up within a copy). Written with gzip (level 1) when OUT ends
in .gz.

usage: make_big_trace.py SOURCE.json[.gz] OUT.json[.gz] SIZE_BYTES
"""
import gzip
import json
import sys


def main() -> int:
    src, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(src, "rb") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    stamps = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = (max(stamps) - min(stamps) + 1) if stamps else 1
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    # Each event once as text, its ts and Addr as slots filled per copy.
    parts = []
    for e in events:
        e = dict(e)
        ts = e.pop("ts", None)
        args = e.get("args")
        addr = args.get("Addr") if isinstance(args, dict) and e.get("name") == "[memory]" else None
        if addr is not None:
            args = dict(args)
            args["Addr"] = "@ADDR@"
            e["args"] = args
        text = json.dumps(e)
        parts.append((text, ts, addr))
    opener = gzip.open if out.endswith(".gz") else open
    kw = {"compresslevel": 1} if out.endswith(".gz") else {}
    written = 0
    with opener(out, "wt", encoding="utf-8", **kw) as f:
        prefix = json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n'
        f.write(prefix)
        written += len(prefix)
        copy = 0
        first = True
        while written < size:
            shift = copy * span
            chunk = []
            for text, ts, addr in parts:
                if addr is not None:
                    text = text.replace('"@ADDR@"', str(addr + copy * (1 << 44)))
                if ts is not None:
                    t = ts + shift
                    text = text[:-1] + ', "ts": ' + (repr(t) if isinstance(t, float) else str(t)) + "}"
                chunk.append(text)
            block = ("" if first else ",\n") + ",\n".join(chunk)
            first = False
            f.write(block)
            written += len(block)
            copy += 1
        f.write("\n]}\n")
    print(json.dumps({"copies": copy, "bytes": written}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
