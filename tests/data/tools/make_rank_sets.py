#!/usr/bin/env python3
"""Makes per-rank sets of PyTorch allocator snapshots from one REAL snapshot, and reads them back
independently of oomscope to print the figures a per-rank comparison must find.

usage: make_rank_sets.py SOURCE.pickle OUT_DIR [STRANGER.pickle]
       make_rank_sets.py --expected OUT_DIR          (only re-read the sets; print expected.json to stdout)

SOURCE is tests/data/torch_snapshot_cs336_small_peak.pickle (a real snapshot of one process). Each rank is
a copy of it with its device id and clock changed, and some ranks get allocations the others do not hold;
every added entry has frames in the file "/synthetic/make_rank_sets.py" so that no one mistakes them for
recorded ones. STRANGER (tests/data/torch2.0_snapshot_flexgen_oom.pickle, another program) is copied byte
for byte as a rank that does not belong. Writes OUT_DIR/expected.json (the independent reading below).

Sets (OUT_DIR/...):
  oom_job/rank{0..3}_oom.pickle   4 ranks on devices 0..3, clocks 137 us apart. Rank 2 holds an unsharded
                                  embedding (1 GiB, a parameter) and runs out first (2 GiB request, 64 MiB
                                  free); rank 0 runs out 30 ms later (512 MiB request, 256 MiB free).
  no_oom/rank_{0..2}/snapshot.pickle   3 ranks, each on device 0 (one visible device per process), no OOM;
                                  rank 1 keeps 256 MiB of extra activations.
  extra/oom_rank1.pickle          rank 1 of oom_job again under another naming scheme (a second claim)
  extra/rank3_oom.pickle          a text file named like a rank's snapshot
  extra/rank3_stranger.pickle     STRANGER, a snapshot of another program

Only the standard library; pickles are loaded with an unpickler that refuses every global.
"""
import copy
import json
import os
import pickle
import shutil
import statistics
import sys

GIB = 1 << 30
MIB = 1 << 20
SYNTH = "/synthetic/make_rank_sets.py"


class Safe(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused global {module}.{name}")


def load(path):
    with open(path, "rb") as f:
        return Safe(f).load()


def frames(*named):  # innermost first, as the snapshot stores them
    return [{"name": n, "filename": f, "line": l} for (n, f, l) in named]


def add_live_allocation(snap, device, size, stack, new_address):
    """A new segment with one live block, and its segment_alloc + alloc right after the first entry."""
    trace = snap["device_traces"][device]
    t0 = trace[0]["time_us"]
    snap["segments"].append(
        {
            "device": device,
            "address": new_address,
            "total_size": size,
            "allocated_size": size,
            "active_size": size,
            "requested_size": size,
            "stream": 0,
            "segment_type": "large",
            "segment_pool_id": (0, 0),
            "is_expandable": False,
            "frames": stack,
            "blocks": [
                {
                    "address": new_address,
                    "size": size,
                    "requested_size": size,
                    "state": "active_allocated",
                    "frames": stack,
                }
            ],
        }
    )
    trace[1:1] = [
        {
            "action": "segment_alloc",
            "addr": new_address,
            "size": size,
            "stream": 0,
            "time_us": t0,
            "frames": stack,
        },
        {"action": "alloc", "addr": new_address, "size": size, "stream": 0, "time_us": t0, "frames": stack},
    ]


def add_oom(snap, device, request, device_free, after_us):
    trace = snap["device_traces"][device]
    t = trace[-1]["time_us"] + after_us
    trace.append(
        {
            "action": "oom",
            "device_free": device_free,
            "size": request,
            "stream": 0,
            "time_us": t,
            "frames": frames(("step", SYNTH, 9)),
        }
    )


def make_rank(source, device, skew_us, visible_devices):
    snap = copy.deepcopy(source)
    for seg in snap["segments"]:
        seg["device"] = device
    trace = snap["device_traces"][0]
    for e in trace:
        e["time_us"] += skew_us
    snap["device_traces"] = [[] for _ in range(visible_devices)]
    snap["device_traces"][device] = trace
    return snap


def write(snap, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump(snap, f, protocol=4)


EMBEDDING = frames(
    ("normal_", "/usr/lib/python3/dist-packages/torch/nn/init.py", 190),
    ("reset_parameters", "/usr/lib/python3/dist-packages/torch/nn/modules/sparse.py", 163),
    ("__init__", "/usr/lib/python3/dist-packages/torch/nn/modules/sparse.py", 155),
    ("unsharded_embedding", SYNTH, 1),
)
ACTIVATIONS = frames(
    ("forward", SYNTH, 2), ("_call_impl", "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", 1562)
)


def make_sets(source_path, out, stranger):
    src = load(source_path)
    top = max(s["address"] + s["total_size"] for s in src["segments"])
    new_address = (top + GIB) & ~(GIB - 1)
    for r in range(4):
        snap = make_rank(src, r, 137 * r, 4)
        if r == 2:
            add_live_allocation(snap, r, GIB, EMBEDDING, new_address)
            add_oom(snap, r, 2 * GIB, 64 * MIB, 10_000)
        if r == 0:
            add_oom(snap, r, 512 * MIB, 256 * MIB, 40_000 - 137 * 2)
        write(snap, f"{out}/oom_job/rank{r}_oom.pickle")
    for r in range(3):
        snap = make_rank(src, 0, 211 * r, 1)
        if r == 1:
            add_live_allocation(snap, 0, 256 * MIB, ACTIVATIONS, new_address)
        write(snap, f"{out}/no_oom/rank_{r}/snapshot.pickle")
    os.makedirs(f"{out}/extra", exist_ok=True)
    shutil.copyfile(f"{out}/oom_job/rank1_oom.pickle", f"{out}/extra/oom_rank1.pickle")
    with open(f"{out}/extra/rank3_oom.pickle", "w") as f:
        f.write("rank 3 wrote no snapshot: this file holds the text of a log line instead\n")
    if stranger:
        shutil.copyfile(stranger, f"{out}/extra/rank3_stranger.pickle")


# ---- the independent reading (docs/snapshot-format.md section 3, written again from the format) ----


def is_internal(path):
    p = path.replace("\\", "/").lower()
    return "/torch/" in p or "site-packages/" in p or "dist-packages/" in p or "/lib/python" in p


def site(stack):
    """The innermost user Python frame, else the innermost Python frame; C++-only stacks by their node."""
    if not stack:
        return "(no stack)"
    py = [f for f in stack if len(f["filename"]) > 3 and f["filename"].endswith(".py")]
    for f in py:
        if not is_internal(f["filename"]):
            return f"{f['filename']}:{f['line']} in {f['name']}"
    if py:
        f = py[0]
        return f"{f['filename']}:{f['line']} in {f['name']}"
    for f in stack:
        n = f["name"]
        if n.startswith("torch::autograd::generated::") and "Backward" in n and "::apply(" in n:
            return "no Python frame; in " + n[: n.index("(")]
    for f in stack:
        n = f["name"]
        if n.startswith("at::_ops::"):
            return "no Python frame; in " + (n[: n.index("(")] if n.find("(") > 0 else n)
    f = stack[0]
    return f"no Python frame; innermost {f['filename']}:{f['line']} in {f['name']}"


def category(stack, lifetime):
    optim = params = backward = forward = False
    for f in stack:
        file = f["filename"].replace("\\", "/").lower()
        n = f["name"]
        optim |= "/torch/optim/" in file and n != "zero_grad"
        backward |= (
            n in ("backward", "_engine_run_backward", "run_backward")
            or "/torch/autograd/__init__.py" in file
            or "/torch/autograd/graph.py" in file
            or n.startswith("torch::autograd::Engine::")
            or (n.startswith("torch::autograd::generated::") and "Backward" in n)
        )
        params |= (
            n in ("_apply", "reset_parameters", "load_state_dict", "_load_from_state_dict")
            or n.startswith("init_weight")
            or "/torch/nn/init.py" in file
            or ("/torch/nn/modules/module.py" in file and n in ("to", "cuda", "convert"))
        )
        forward |= n in ("forward", "_call_impl", "_wrapped_call_impl")
    short = 0 <= lifetime <= 16
    if optim:
        return "optimizer state"
    if backward:
        return "gradients"
    if params:
        return "parameters"
    if forward:
        return "temporaries" if short else "activations"
    if not stack:
        return "temporaries" if short else "unknown"
    return "temporaries" if short else "other"


def read_rank(path):
    snap = load(path)
    traces = snap["device_traces"]
    device = max(range(len(traces)), key=lambda d: (len(traces[d]), -d))
    trace = traces[device]
    elems, live = [], {}
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            live[e["addr"]] = len(elems)
            elems.append([e["size"], i, -1, e.get("frames", [])])
        elif e["action"] == "free_completed":
            if e["addr"] in live:
                elems[live.pop(e["addr"])][2] = i
            else:
                elems.append([e["size"], -1, i, e.get("frames", [])])
    for s in snap["segments"]:
        if s["device"] != device:
            continue
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in live:
                elems.append([b["requested_size"], -1, -1, b.get("frames", [])])
    total = sum(e[0] for e in elems if e[1] < 0)
    peak, peak_i = total, -1
    for i in range(len(trace)):
        for e in elems:
            if e[1] == i:
                total += e[0]
            elif e[2] == i:
                total -= e[0]
        if total > peak:
            peak, peak_i = total, i
    sites, cats = {}, {}
    for size, start, end, stack in elems:
        if start <= peak_i and (end < 0 or end > peak_i):
            w = site(stack)
            sites[w] = sites.get(w, 0) + size
            c = category(stack, end - start if start >= 0 and end >= 0 else -1)
            cats[c] = cats.get(c, 0) + size
    # reserved peak: segment_alloc / segment_free paired by address, snapshot segments not opened in the trace
    opened, seg_total, seg_peak, delta = set(), 0, 0, []
    for e in trace:
        if e["action"] == "segment_alloc":
            opened.add(e["addr"])
            delta.append(e["size"])
        elif e["action"] == "segment_free":
            delta.append(-e["size"])
    initial = sum(
        s["total_size"] for s in snap["segments"] if s["device"] == device and s["address"] not in opened
    )
    seg_total = seg_peak = initial
    for d in delta:
        seg_total += d
        seg_peak = max(seg_peak, seg_total)
    ooms = [e for e in trace if e["action"] == "oom"]
    oom = None
    if ooms:
        o = ooms[-1]
        oom = {"requested": o["size"], "device_free": o["device_free"], "time_us": o["time_us"]}
    return {
        "device": device,
        "peak_allocated": peak,
        "peak_reserved": seg_peak,
        "oom": oom,
        "sites": sites,
        "categories": cats,
    }


def compare(ranks, verdict_rank):
    """What the verdict rank holds beyond the median rank, and max / median per category."""
    cat_names = sorted({c for r in ranks.values() for c in r["categories"]})
    imbalance = {}
    for c in cat_names:
        vals = [r["categories"].get(c, 0) for r in ranks.values()]
        med = statistics.median(vals)
        imbalance[c] = {"max": max(vals), "median": med, "ratio": (max(vals) / med) if med else None}
    site_names = sorted({s for r in ranks.values() for s in r["sites"]})
    diffs = []
    for s in site_names:
        med = statistics.median([r["sites"].get(s, 0) for r in ranks.values()])
        d = ranks[verdict_rank]["sites"].get(s, 0) - med
        if d:
            diffs.append({"site": s, "difference": d})
    diffs.sort(key=lambda x: (-abs(x["difference"]), x["site"]))
    cat_diffs = []
    for c in cat_names:
        med = statistics.median([r["categories"].get(c, 0) for r in ranks.values()])
        d = ranks[verdict_rank]["categories"].get(c, 0) - med
        if d:
            cat_diffs.append({"category": c, "difference": d})
    peaks = [r["peak_allocated"] for r in ranks.values()]
    return {
        "imbalance": imbalance,
        "sites": diffs,
        "categories": cat_diffs,
        "peak_allocated_ratio": max(peaks) / statistics.median(peaks),
    }


def expected(out):
    res = {}
    job = {r: read_rank(f"{out}/oom_job/rank{r}_oom.pickle") for r in range(4)}
    first = min((r for r in job if job[r]["oom"]), key=lambda r: job[r]["oom"]["time_us"])
    res["oom_job"] = {"ranks": job, "verdict_rank": first, **compare(job, first)}
    no = {r: read_rank(f"{out}/no_oom/rank_{r}/snapshot.pickle") for r in range(3)}
    highest = max(no, key=lambda r: (no[r]["peak_reserved"], -r))
    res["no_oom"] = {"ranks": no, "verdict_rank": highest, **compare(no, highest)}
    return res


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--expected":
        json.dump(expected(sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[2]
    make_sets(sys.argv[1], out, sys.argv[3] if len(sys.argv) == 4 else None)
    with open(f"{out}/expected.json", "w") as f:
        json.dump(expected(out), f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
