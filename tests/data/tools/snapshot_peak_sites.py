#!/usr/bin/env python3
"""An independent reading of what is live at a PyTorch allocator snapshot's active-memory peak, by
allocation site (user code line) and category, for checking `oomscope-cli diff --json`'s `sites`.

Reads the pickle with Python's own Unpickler restricted to plain data (every global and persistent id is
refused), rebuilds the Active Memory Timeline of the device with the longest trace as memory_viz does
(allocs paired with `free_completed` by address; live `active_allocated` blocks with no alloc in the trace
(their frames, or in a 2.0 file their history's newest entry's) and frees with no alloc count from the
start), finds the first entry at the maximum, and groups the elements live there by their innermost user
frame and by the built-in category rules written out in docs/categories.md (frames, then lifetime).
It shares no code with oomscope.

usage: snapshot_peak_sites.py A.pickle [B.pickle]
prints JSON: {"runs": [{"file", "device", "peak_bytes", "peak_index", "sites": [{site, category, bytes,
count}]}], "diff": [{site, category, a, b}] (only with two files, rows whose bytes differ)}
"""
import json
import pickle
import sys


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing persistent id")


def norm(path):
    return path.replace("\\", "/").lower()


def is_python(f):
    return len(f["filename"]) > 3 and f["filename"].endswith(".py")


def torch_internal(file):
    return any(p in file for p in ("/torch/", "site-packages/", "dist-packages/", "/lib/python"))


def no_args(name):
    i = name.find("(")
    return name if i <= 0 else name[:i]


def site_of(frames):
    if not frames:
        return "(no stack)"
    first = None
    for f in frames:
        if not is_python(f):
            continue
        if first is None:
            first = f
        if not torch_internal(norm(f["filename"])):
            first = f
            break
    if first is not None:
        return f"{first['filename']}:{first['line']} in {first['name']}"
    for f in frames:
        n = f["name"]
        if n.startswith("torch::autograd::generated::") and "Backward" in n and "::apply(" in n:
            return "no Python frame; in " + no_args(n)
    for f in frames:
        if f["name"].startswith("at::_ops::"):
            return "no Python frame; in " + no_args(f["name"])
    f = frames[0]
    return f"no Python frame; innermost {f['filename']}:{f['line']} in {f['name']}"


def kv_cache(file, name):
    n = name.lower()
    return (
        file.endswith("/cache_utils.py")
        or file.endswith("/cache_engine.py")
        or "/kv_cache" in file
        or any(p in n for p in ("kv_cache", "kvcache", "init_cache", "past_key_value"))
    )


def comm(file, name):
    return (
        any(
            p in file
            for p in ("/torch/distributed/", "/torch/nn/parallel/distributed.py", "/deepspeed/comm/")
        )
        or name.startswith("c10d::")
        or "nccl" in name.lower()
    )


def backward(file, name):
    return (
        name in ("backward", "_engine_run_backward", "run_backward")
        or "/torch/autograd/__init__.py" in file
        or "/torch/autograd/graph.py" in file
        or name.startswith("torch::autograd::Engine::")
        or (name.startswith("torch::autograd::generated::") and "Backward" in name)
    )


def params(file, name):
    return (
        name in ("_apply", "reset_parameters", "load_state_dict", "_load_from_state_dict")
        or name.startswith("init_weight")
        or "/torch/nn/init.py" in file
        or ("/torch/nn/modules/module.py" in file and name in ("to", "cuda", "convert"))
    )


def category(frames, life):
    short = life is not None and 0 <= life <= 16
    fs = [(norm(f["filename"]), f["name"]) for f in frames]
    if any("/torch/optim/" in file and name != "zero_grad" for file, name in fs):
        return "optimizer state"
    if any(comm(file, name) for file, name in fs):
        return "communication"
    if any(kv_cache(file, name) for file, name in fs):
        return "KV cache"
    forward = any(name in ("forward", "_call_impl", "_wrapped_call_impl") for _, name in fs)
    if any(backward(file, name) for file, name in fs):
        # a module's forward() run again inside backward() by activation checkpointing
        if forward and any("/torch/utils/checkpoint.py" in file for file, _ in fs):
            return "activations"
        return "gradients"
    if any(params(file, name) for file, name in fs):
        return "parameters"
    if forward:
        return "temporaries" if short else "activations"
    if not fs:
        return "temporaries" if short else "unknown"
    return "temporaries" if short else "other"


def peak_sites(path):
    with open(path, "rb") as f:
        snap = DataOnly(f).load()
    traces = snap.get("device_traces", [])
    device = max(range(len(traces)), key=lambda d: (len(traces[d]), -d)) if traces else 0
    trace = traces[device] if traces else []
    elements = []  # [size, start, end, frames]
    live = {}
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            elements.append([e["size"], i, None, e.get("frames", [])])
            live[e["addr"]] = len(elements) - 1
        elif e["action"] == "free_completed":
            if e["addr"] in live:
                elements[live.pop(e["addr"])][2] = i
            else:
                elements.append([e["size"], None, i, e.get("frames", [])])
    for seg in snap["segments"]:
        if seg["device"] != device:
            continue
        addr = seg["address"]
        for b in seg["blocks"]:
            baddr = b.get("address", addr)
            addr += b["size"]
            if b["state"] != "active_allocated" or baddr in live:
                continue
            req = b.get("requested_size") or (b["history"][0]["real_size"] if b.get("history") else b["size"])
            frames = b.get("frames") or (b["history"][0].get("frames", []) if b.get("history") else [])
            elements.append([req, None, None, frames])
    total = sum(el[0] for el in elements if el[1] is None)
    delta = [0] * len(trace)
    for el in elements:
        if el[1] is not None:
            delta[el[1]] += el[0]
        if el[1] is not None and el[2] is not None:
            delta[el[2]] -= el[0]
        elif el[1] is None and el[2] is not None:
            delta[el[2]] -= el[0]
    peak, peak_index = total, -1
    for i, d in enumerate(delta):
        total += d
        if total > peak:
            peak, peak_index = total, i
    groups = {}
    for size, start, end, frames in elements:
        s = -1 if start is None else start
        if not (s <= peak_index and (end is None or end > peak_index)):
            continue
        life = end - start if start is not None and end is not None else None
        key = (site_of(frames), category(frames, life))
        g = groups.setdefault(key, [0, 0])
        g[0] += size
        g[1] += 1
    sites = [
        {"site": k[0], "category": k[1], "bytes": v[0], "count": v[1]} for k, v in sorted(groups.items())
    ]
    assert sum(s["bytes"] for s in sites) == peak, "the sites do not add up to the peak"
    return {"file": path, "device": device, "peak_bytes": peak, "peak_index": peak_index, "sites": sites}


def main():
    runs = [peak_sites(p) for p in sys.argv[1:3]]
    out = {"runs": runs}
    if len(runs) == 2:
        rows = {}
        for which, run in zip("ab", runs):
            for s in run["sites"]:
                rows.setdefault((s["site"], s["category"]), {"a": 0, "b": 0})[which] = s["bytes"]
        out["diff"] = [
            {"site": k[0], "category": k[1], "a": v["a"], "b": v["b"]}
            for k, v in sorted(rows.items())
            if v["a"] != v["b"]
        ]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
