#!/usr/bin/env python3
"""An independent reading of the out-of-memory messages in text logs, for the tests to pin oomscope's figures.

usage: read_oom_logs.py LOG...        prints JSON: one object per file, {"file", "messages": [...]}

Each message is {"kind", "line", "figures": {key: bytes or count}} with the kinds and figure keys of
docs/logs.md. This is not oomscope's reader: it is a handful of regular expressions over each line (CR, NUL
and ANSI colour codes removed first, also the "[2m" leftovers of codes whose ESC was lost), with
sizes converted
by the unit rules the frameworks use (all binary: B/bytes, K/KB/KiB = 2^10, M/MB/MiB = 2^20, G/GB/GiB = 2^30,
T = 2^40; PyTorch's MPS allocator writes GB for 2^30, XLA writes G). A value is the printed number times its
unit, rounded to a byte. Only the figures below are read; the product reads more.
"""
import json
import re
import sys

UNITS = {
    "B": 0,
    "bytes": 0,
    "K": 1,
    "KB": 1,
    "KiB": 1,
    "M": 2,
    "MB": 2,
    "MiB": 2,
    "G": 3,
    "GB": 3,
    "GiB": 3,
    "T": 4,
    "TB": 4,
    "TiB": 4,
}
SIZE = r"(-?[\d,]+(?:\.\d+)?)\s?(bytes|[KMGT]iB|[KMGT]B|[KMGT]|B)\b"


def to_bytes(number, unit):
    return int(round(float(number.replace(",", "")) * (1024 ** UNITS[unit])))


def size(pattern, text, key, out):
    m = re.search(pattern.replace("SIZE", SIZE), text)
    if m:
        out[key] = to_bytes(m.group(1), m.group(2))


def integer(pattern, text, key, out):
    m = re.search(pattern, text)
    if m:
        out[key] = int(m.group(1).replace(",", ""))


def clean(line):
    line = line.replace("\r", "").replace("\0", "")
    line = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line)
    return re.sub(r"\[[0-9;]{1,10}m", "", line)


def torch_message(kind, text, line):
    f = {}
    size(r"Tried to allocate SIZE", text, "requested", f)
    if "(GPU " in text:  # torch <= 2.0
        size(r"SIZE total capacity", text, "capacity", f)
        size(r"SIZE already allocated", text, "allocated", f)
        size(r"SIZE free", text, "free", f)
        size(r"SIZE reserved in total by PyTorch", text, "reserved", f)
        size(r"SIZE cached", text, "reserved_unallocated", f)
    else:
        size(r"total capac(?:i)?ty of SIZE", text, "capacity", f)
        size(r"of which SIZE is free", text, "free", f)
        size(r"this process has SIZE memory in use", text, "process_in_use", f)
        size(r"SIZE allowed;", text, "allowed", f)
        size(r"Of the allocated memory SIZE is allocated by PyTorch", text, "allocated", f)
        size(r"with SIZE allocated in private pools", text, "private_pools", f)
        size(r"and SIZE is reserved by PyTorch but unallocated", text, "reserved_unallocated", f)
    return {"kind": kind, "line": line, "figures": f}


def read(path):
    with open(path, "rb") as fh:
        lines = [clean(text) for text in fh.read().decode("utf-8", "replace").split("\n")]
    msgs = []
    i = 0
    while i < len(lines):
        t = lines[i]
        n = i + 1
        m = re.search(r"(CUDA|HIP) out of memory\. Tried to allocate", t)
        if m:
            text = t
            # A message wrapped by a terminal or a user: join the next lines until its end is there.
            j = i
            while j + 1 < len(lines) and j < i + 4 and not re.search(r"\)|unallocated", text[m.start() :]):
                j += 1
                text += " " + re.sub(r"^\s*#?\s*", "", lines[j])
            msgs.append(torch_message("pytorch-" + m.group(1).lower(), text[m.start() :], n))
        elif "MPS backend out of memory" in t:
            f = {}
            size(r"Tried to allocate SIZE", t, "requested", f)
            size(r"MPS allocated: SIZE", t, "mps_allocated", f)
            size(r"other allocations: SIZE", t, "other_allocations", f)
            size(r"max allowed: SIZE", t, "max_allowed", f)
            msgs.append({"kind": "pytorch-mps", "line": n, "figures": f})
        elif re.search(r"Out of memory while trying to allocate (\d+) bytes", t):
            f = {}
            integer(r"Out of memory while trying to allocate (\d+) bytes", t, "requested", f)
            k = i + 1
            while k < len(lines) and k < i + 12:
                for label, key in (
                    ("parameter allocation", "parameters"),
                    ("constant allocation", "constants"),
                    ("maybe_live_out allocation", "live_out"),
                    ("preallocated temp allocation", "temp"),
                    ("total allocation", "total"),
                    ("total fragmentation", "fragmentation"),
                ):
                    size(r"^\s*" + label + r":\s*SIZE", lines[k], key, f)
                k += 1
            msgs.append({"kind": "xla-gpu", "line": n, "figures": f})
        elif "Ran out of memory in memory space" in t:
            f = {}
            m2 = re.search(r"Used " + SIZE + r" of " + SIZE, t)
            if m2:
                f["used"] = to_bytes(m2.group(1), m2.group(2))
                f["capacity"] = to_bytes(m2.group(3), m2.group(4))
            size(r"capacity by SIZE", t, "exceeded", f)
            msgs.append({"kind": "xla-tpu", "line": n, "figures": f})
        elif "Attempting to reserve" in t:
            f = {}
            size(r"Attempting to reserve SIZE", t, "requested", f)
            size(r"There are SIZE free", t, "free", f)
            size(r"and SIZE reservable", t, "reservable", f)
            if not (msgs and msgs[-1]["kind"] == "xla-tpu" and msgs[-1]["figures"] == f):  # printed twice
                msgs.append({"kind": "xla-tpu", "line": n, "figures": f})
        elif re.search(r"ran out of memory trying to allocate", t, re.I):
            f = {}
            size(r"trying to allocate SIZE", t, "requested", f)
            integer(r"\(rounded to (\d+)\)", t, "rounded", f)
            warning = "not a failure" in t
            k = i + 1
            while not warning and k < len(lines) and k < i + 60:
                for label, key in (("Limit", "limit"), ("InUse", "in_use"), ("MaxInUse", "max_in_use")):
                    integer(r"^\s*" + label + r":\s+(\d+)\s*$", lines[k], key, f)
                k += 1
            msgs.append({"kind": "bfc-warning" if warning else "bfc", "line": n, "figures": f})
        elif "Failed to allocate request for" in t:
            f = {}
            integer(r"\((\d+)B\)", t, "requested", f)
            msgs.append({"kind": "xla-allocation", "line": n, "figures": f})
        elif "max seq len (" in t:
            f = {}
            integer(r"max seq len \((\d+)\)", t, "max_seq_len", f)
            integer(r"KV cache \((\d+)\)", t, "kv_cache_tokens", f)
            msgs.append({"kind": "vllm-kv-cache", "line": n, "figures": f})
        elif "Failed to CUDA calloc" in t:
            f = {}
            integer(r"Failed to CUDA calloc (\d+) bytes", t, "requested", f)
            msgs.append({"kind": "nccl", "line": n, "figures": f})
        elif "CUDA_ERROR_OUT_OF_MEMORY" in t and "failed to allocate" in t:
            f = {}
            integer(r"\((\d+) bytes\)", t, "requested", f)
            msgs.append({"kind": "stream-executor", "line": n, "figures": f})
        i += 1
    return {"file": path, "messages": msgs}


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    print(json.dumps([read(p) for p in argv[1:]], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
