#!/usr/bin/env python3
"""Makes per-rank sets of Kineto traces from one REAL trace, and reads them back independently of oomscope
to print the figures a per-rank comparison must find.

usage: make_kineto_ranks.py SOURCE.json.gz OUT_DIR
       make_kineto_ranks.py --expected OUT_DIR          (only re-read the sets; print expected.json to stdout)

SOURCE is tests/data/kineto_ddp_v100_rank1_profile_memory.json.gz (a real Kineto trace of rank 1 of a
two-rank DDP job on 2x V100-SXM2-32GB, profile_memory on). Each rank is cut from it: the top-level members
(deviceProperties, distributedInfo, ...), the ProfilerStep#2 and #3 annotations and the CUDA [memory]
events up to the end of ProfilerStep#3 (10,708 of its 26,770 CUDA events; its Total Allocated maximum,
6,629,508,096, lies in that window), without their "Ev Idx" member. Every rank's clock is moved by
137 us times its rank. Added events carry "Synthetic": "make_kineto_ranks.py" in their args so that no one
mistakes them for recorded ones. The extra bytes are one [memory] event 1 us before the rank's earliest one,
with the Total Allocated and Total Reserved of every later event raised by them.

Sets (OUT_DIR/...):
  oom_job/node{H}_{PID}.pt.trace.json.gz   4 ranks (distributedInfo rank 0..3, world_size 4; names carry no
                                  rank), ranks 2r and 2r+1 on devices 0 and 1 of host r. Rank 2 holds an
                                  extra 1 GiB from its first event on and runs out first (a 20 GiB
                                  request at its peak); rank 0 runs out 30 ms later (a 24 GiB request).
  no_oom/rank{0..2}.pt.trace.json.gz   3 ranks named by their file names (no distributedInfo), each on
                                  device 1, no OOM; rank 1 holds an extra 256 MiB from its first event on.

Only the standard library.
"""
import gzip
import json
import os
import re
import statistics
import sys

GIB = 1 << 30
MIB = 1 << 20
SHIFT_US = 137
SYNTH = {"Synthetic": "make_kineto_ranks.py"}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def cut(source):
    """The source's top-level members, its first two ProfilerStep annotations and its CUDA [memory] events
    up to the end of the second one."""
    steps = sorted(
        (e for e in source["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")),
        key=lambda e: e["ts"],
    )[:2]
    end = steps[-1]["ts"] + steps[-1]["dur"]
    mem = []
    for e in source["traceEvents"]:
        if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1 and e["ts"] <= end:
            e = json.loads(json.dumps(e))
            e["args"].pop("Ev Idx", None)
            mem.append(e)
    top = {k: v for k, v in source.items() if k != "traceEvents"}
    return top, steps, mem


def make_rank(top, steps, mem, rank, device, world_size, extra, oom_request, oom_delay_us):
    """One rank: the cut trace on `device`, its clock moved, `extra` bytes held from its first event on
    and, with oom_request, an [OutOfMemory] event oom_delay_us after its peak (or at it)."""
    shift = SHIFT_US * rank
    out = dict(top)
    if world_size is None:
        out.pop("distributedInfo", None)
    else:
        out["distributedInfo"] = dict(top["distributedInfo"], rank=rank, world_size=world_size)
    events = [dict(s, ts=s["ts"] + shift) for s in steps]
    first = min(mem, key=lambda e: e["ts"])  # the file is not in time order
    if extra:
        a = first["args"]
        events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "s": "t",
                "name": "[memory]",
                "pid": first["pid"],
                "tid": first["tid"],
                "ts": first["ts"] + shift - 1,
                "args": dict(
                    SYNTH,
                    **{
                        "Device Type": 1,
                        "Device Id": device,
                        "Addr": 0x7F0000000000,
                        "Bytes": extra,
                        "Total Allocated": a["Total Allocated"] - a["Bytes"] + extra,
                        "Total Reserved": a["Total Reserved"] + extra,
                    },
                ),
            }
        )
    peak = None
    for e in mem:
        e = json.loads(json.dumps(e))
        e["ts"] += shift
        e["args"]["Device Id"] = device
        e["args"]["Total Allocated"] += extra
        e["args"]["Total Reserved"] += extra
        events.append(e)
        if peak is None or e["args"]["Total Allocated"] > peak["args"]["Total Allocated"]:
            peak = e
    if oom_request:
        events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "s": "t",
                "name": "[OutOfMemory]",
                "pid": peak["pid"],
                "tid": peak["tid"],
                "ts": peak["ts"] + 1 + oom_delay_us,
                "args": dict(
                    SYNTH,
                    **{
                        "Device Type": 1,
                        "Device Id": device,
                        "Bytes": oom_request,
                        "Total Allocated": peak["args"]["Total Allocated"],
                        "Total Reserved": peak["args"]["Total Reserved"],
                    },
                ),
            }
        )
    return out | {"traceEvents": events}


def write(path, trace):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps(trace, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(text, 9, mtime=0))


def make(source_path, out_dir):
    top, steps, mem = cut(load(source_path))
    pid = mem[0]["pid"]
    for rank in range(4):
        extra = GIB if rank == 2 else 0
        oom = {2: 20 * GIB, 0: 24 * GIB}.get(rank, 0)
        # rank 0's OOM comes 30 ms after rank 2's: rank 2's peak lies where rank 0's does, 274 us later.
        delay = 30_000 + 2 * SHIFT_US if rank == 0 else 0
        trace = make_rank(top, steps, mem, rank, rank % 2, 4, extra, oom, delay)
        write(os.path.join(out_dir, "oom_job", f"node{rank // 2}_{pid + rank}.pt.trace.json.gz"), trace)
    for rank in range(3):
        trace = make_rank(top, steps, mem, rank, 1, None, 256 * MIB if rank == 1 else 0, 0, 0)
        write(os.path.join(out_dir, "no_oom", f"rank{rank}.pt.trace.json.gz"), trace)


def read_rank(path):
    """The figures of one trace, read from the JSON as docs/snapshot-format.md section 4 describes it."""
    t = load(path)
    info = t.get("distributedInfo")
    if info is not None and isinstance(info.get("rank"), int):
        rank = info["rank"]
    else:
        rank = int(re.search(r"rank(\d+)", os.path.basename(path)).group(1))
    by_device = {}
    for e in t["traceEvents"]:
        if e.get("name") in ("[memory]", "[OutOfMemory]") and e["args"].get("Device Type") == 1:
            by_device.setdefault(e["args"]["Device Id"], []).append(e)
    device = max(by_device, key=lambda d: (sum(e["name"] == "[memory]" for e in by_device[d]), -d))
    ev = sorted(by_device[device], key=lambda e: e["ts"])
    mem = [e for e in ev if e["name"] == "[memory]"]
    capacity = next(p["totalGlobalMem"] for p in t["deviceProperties"] if p["id"] == device)
    return {
        "rank": rank,
        "file": os.path.basename(path),
        "device": device,
        "peak_allocated_bytes": max(e["args"]["Total Allocated"] for e in mem),
        "peak_reserved_bytes": max(e["args"]["Total Reserved"] for e in mem),
        "capacity_bytes": capacity,
        "memory_events": len(mem),
        "ooms": [
            {"ts_us": e["ts"], "requested_bytes": e["args"]["Bytes"]} for e in ev if e["name"] != "[memory]"
        ],
        "steps": sorted(
            int(e["name"][13:]) for e in t["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")
        ),
    }


def verdict(ranks):
    ooms = [r for r in ranks if r["ooms"]]
    if ooms:
        first = min(ooms, key=lambda r: (r["ooms"][0]["ts_us"], r["rank"]))
        return {"rank": first["rank"], "case": "oom", "oom_ranks": [r["rank"] for r in ooms]}
    best = max(ranks, key=lambda r: (r["peak_reserved_bytes"] / r["capacity_bytes"], -r["rank"]))
    return {"rank": best["rank"], "case": "closest-to-capacity", "oom_ranks": []}


def imbalance(ranks, key):
    values = [r[key] for r in ranks]
    top = max(ranks, key=lambda r: (r[key], -r["rank"]))
    median = statistics.median(values)
    return {
        "max_bytes": top[key],
        "max_rank": top["rank"],
        "median_bytes": median,
        "ratio": top[key] / median,
    }


def expected(out_dir):
    result = {}
    for name in ("oom_job", "no_oom"):
        folder = os.path.join(out_dir, name)
        ranks = sorted(
            (read_rank(os.path.join(folder, f)) for f in os.listdir(folder)), key=lambda r: r["rank"]
        )
        result[name] = {
            "ranks": ranks,
            "verdict": verdict(ranks),
            "imbalance": {k: imbalance(ranks, k + "_bytes") for k in ("peak_allocated", "peak_reserved")},
        }
    return result


def main(argv):
    if len(argv) == 3 and argv[1] == "--expected":
        print(json.dumps(expected(argv[2]), indent=1, sort_keys=True))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    make(argv[1], argv[2])
    with open(os.path.join(argv[2], "expected.json"), "w") as f:
        f.write(json.dumps(expected(argv[2]), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
