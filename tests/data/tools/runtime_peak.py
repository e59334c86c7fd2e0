#!/usr/bin/python3
"""Independent reading of the runtime peak and the eager decision, for oomscope's report tests.

Reads a capture with Python's protobuf (classes compiled from core/proto/*.proto at run time) and prints,
for every device allocator (name without "host") that has events:

- its peak: the largest bytes_allocated of its MemoryAllocation/MemoryDeallocation events (the first such
  event) and its time;
- the host execution whose ExecuteHelper span holds that time (one on the peak event's own thread first,
  else one whose first allocation on its thread is on this allocator), named by the "<module>:XLA GPU
  module" span inside it;
- the reconciliation, from the events alone: in use just before the execution started (the last event of
  the allocator before it, else the first event after it worked back by its chunk), plus the chunks
  allocated from its start to the peak and still live at the peak (on the execution's thread inside its
  span: its own, else another thread's), minus the chunks freed in that time that were allocated before
  its start; and what is left over (0 when the events agree);
- the number of allocations live at the peak, and of all allocations those whose chunk is at least
  1 MiB larger than the request (and the bytes of those differences).

And the program: how many modules the capture has (/host:metadata), how many executions each module
name ran (module spans inside helpers, by name), whether a module that ran has a backward pass (an HLO
instruction whose op_name holds "transpose("), and the eager verdict: at least 5 modules, at least 3 of
them ran, none that ran has a backward, and none ran more than half of the executions. Modules that share
a name are told apart through tests/data/tools/execution_programs.py (program ids by kernel launches).

Shares no code with oomscope's C++. Run with /usr/bin/python3:
    tests/data/tools/runtime_peak.py CAPTURE.xplane.pb [--json]
"""

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compile_protos import compile_protos  # noqa: E402

MiB = 1 << 20


def allocator_key(st):
    """The allocator an event belongs to: its allocator_name (the BFC on GPU); the TPU runtime writes none,
    its events carry device_ordinal or index_on_host (one per chip), named "TPU_<n>" here as XProf groups
    them."""
    if st.get("allocator_name"):
        return st["allocator_name"]
    for key in ("device_ordinal", "index_on_host"):
        if st.get(key) is not None:
            return "TPU_%d" % int(st[key])
    return ""


def value(stat, names):
    kind = stat.WhichOneof("value")
    if kind == "ref_value":
        return names.get(stat.ref_value, "")
    return getattr(stat, kind) if kind else None


def read(path):
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp)
        xp = importlib.import_module("xplane_pb2")
        hlo = importlib.import_module("hlo_pb2")
        space = xp.XSpace()
        with open(path, "rb") as f:
            space.ParseFromString(f.read())
    return space, hlo


def donation(runs, sizes, parameter_sizes, executions, memory):
    """Over the last 8 of a module's calls `runs`: a call is "dead" when for every donatable size one of the
    allocations live at its start whose request has that size is freed after the call ended and before the
    next execution (of anything) started. Its arguments' candidates are the live allocations whose request is
    a parameter's size plus the bytes in use since before the capture (in use minus the live chunks); they are
    "tight" when they hold the parameters with less than the smallest parameter over. A call is "reused by"
    the module's next call when both are tight and have the same candidates. Every call dead: "dead after the
    call"; else any reused: "live at later calls"; else "unknown"."""
    allocator = next((x["allocator"] for x in runs if x["allocator"]), None)
    mine = [m for m in memory if m[3] == allocator]
    freed, open_ = {}, {}
    for m in mine:
        if m[2]:
            open_[m[4]] = m
            freed[m] = None
        elif m[4] in open_:
            freed[open_.pop(m[4])] = m[0]

    def live_at(t):
        return [m for m, f in freed.items() if m[0] < t and (f is None or f >= t)]

    def candidates(t):
        before = [m for m in mine if m[0] < t]
        if before:
            in_use = before[-1][7]
        else:
            m = next(m for m in mine if m[0] >= t)
            in_use = m[7] - m[6] if m[2] else m[7] + m[6]
        live = live_at(t)
        pre = max(0, in_use - sum(m[6] for m in live))
        args = sorted(m[1] for m in live if m[5] in parameter_sizes)
        held = sum(m[5] for m in live if m[5] in parameter_sizes) + pre
        need = sum(parameter_sizes)
        smallest = min(parameter_sizes) if parameter_sizes else 0
        return (args, pre), smallest > 0 and need <= held < need + smallest

    calls = dead_calls = 0
    reused_by = []
    first = max(0, len(runs) - 8)
    for k in range(first, len(runs)):
        run = runs[k]
        calls += 1
        later = [x["start"] for x in executions if x["start"] > run["end"]]
        next_any = min(later) if later else None
        live = live_at(run["start"])
        every_dead = True
        for size in sizes:
            args = [m for m in live if m[5] == size]
            dead = any(
                freed[m] is not None and freed[m] >= run["end"] and (next_any is None or freed[m] <= next_any)
                for m in args
            )
            every_dead = every_dead and dead
        dead_calls += every_dead
        if k + 1 < len(runs):
            now, now_tight = candidates(run["start"])
            nxt, nxt_tight = candidates(runs[k + 1]["start"])
            if now_tight and nxt_tight and now == nxt:
                reused_by.append(k + 2)
    fate = (
        "no runtime"
        if not runs or allocator is None
        else "dead after the call"
        if dead_calls == calls
        else "live at later calls"
        if reused_by
        else "unknown"
    )
    return {
        "fate": fate,
        "calls": calls,
        "dead_calls": dead_calls,
        "reused_calls": len(reused_by),
        "reused_by": reused_by,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--donation",
        nargs=3,
        metavar=("STARTS", "SIZES", "PARAMETER_SIZES"),
        help="judge donation for parameters of these sizes (bytes, comma-separated) over the "
        "executions that start at STARTS (ps, comma-separated: one module's calls)",
    )
    a = ap.parse_args()
    space, hlo = read(a.file)

    memory, helpers, module_spans = [], [], []
    modules = {}  # "name(id)" -> has a backward
    for plane in space.planes:
        names = {k: v.name for k, v in plane.stat_metadata.items()}
        if plane.name == "/host:metadata":
            for md in plane.event_metadata.values():
                if not re.search(r"\(\d+\)$", md.name):
                    continue
                backward = False
                for s in md.stats:
                    if (
                        names.get(s.metadata_id) in ("Hlo Proto", "HLO Proto")
                        and s.WhichOneof("value") == "bytes_value"
                    ):
                        p = hlo.HloProto()
                        p.ParseFromString(s.bytes_value)
                        backward = any(
                            "transpose(" in i.metadata.op_name
                            for c in p.hlo_module.computations
                            for i in c.instructions
                        )
                modules[md.name] = backward
        if plane.name != "/host:CPU":
            continue
        events = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for e in line.events:
                t = line.timestamp_ns * 1000 + e.offset_ps
                name = events.get(e.metadata_id, "")
                if name in ("MemoryAllocation", "MemoryDeallocation"):
                    st = {names.get(s.metadata_id): value(s, names) for s in e.stats}
                    memory.append(
                        (
                            t,
                            len(memory),
                            name == "MemoryAllocation",
                            allocator_key(st),
                            int(st.get("addr") or 0),
                            int(st.get("requested_bytes") or 0),
                            int(st.get("allocation_bytes") or 0),
                            int(st.get("bytes_allocated") or 0),
                            line.id,
                        )
                    )
                elif name.endswith("LoadedExecutable::ExecuteHelper"):
                    helpers.append((t, t + e.duration_ps, line.id))
                elif name.endswith(":XLA GPU module"):
                    module_spans.append((t, line.id, name[: -len(":XLA GPU module")]))
    memory.sort()
    helpers.sort()
    top, last_end = [], {}
    for h in helpers:  # nested helpers on one thread are one execution
        if h[0] > last_end.get(h[2], -1):
            top.append(h)
            last_end[h[2]] = h[1]
    executions = []
    for start, end, thread in top:
        name = next((m for t, th, m in module_spans if th == thread and start <= t <= end), "")
        first = next((m[3] for m in memory if m[8] == thread and start <= m[0] <= end and m[2]), None)
        executions.append({"start": start, "end": end, "thread": thread, "module": name, "allocator": first})
    number = collections.Counter()
    for x in executions:
        number[(x["module"], x["thread"])] += 1
        x["number"] = number[(x["module"], x["thread"])]

    allocators = sorted({m[3] for m in memory if "host" not in m[3]})
    out = {"allocators": {}}
    for name in allocators:
        mine = [m for m in memory if m[3] == name]
        peak = max(mine, key=lambda m: (m[7], -m[0], -m[1]))
        live = {}
        for m in mine:
            if m > peak:
                break
            if m[2]:
                live[m[4]] = m
            else:
                live.pop(m[4], None)
        allocs = [m for m in mine if m[2]]
        rounded = [m for m in allocs if m[6] - m[5] >= MiB]
        r = {
            "peak_bytes": peak[7],
            "time_ps": peak[0],
            "live_allocations": len(live),
            "allocations": len(allocs),
            "rounded_up_1mib": len(rounded),
            "rounded_up_1mib_bytes": sum(m[6] - m[5] for m in rounded),
            "execution": None,
        }
        holder = next(
            (x for x in executions if x["start"] <= peak[0] <= x["end"] and x["thread"] == peak[8]), None
        ) or next(
            (x for x in executions if x["start"] <= peak[0] <= x["end"] and x["allocator"] == name), None
        )
        if holder:
            before = [m for m in mine if m[0] < holder["start"]]
            if before:
                at_start = before[-1][7]
            else:
                m = next(m for m in mine if m[0] >= holder["start"])
                at_start = m[7] - m[6] if m[2] else m[7] + m[6]
            own = own_req = own_n = other = other_n = freed = freed_n = 0
            since = set()
            for m in mine:
                if m[0] < holder["start"] or m > peak:
                    continue
                if m[2]:
                    since.add(m[4])
                    if live.get(m[4]) is not m:
                        continue
                    if m[8] == holder["thread"] and m[0] <= holder["end"]:
                        own, own_req, own_n = own + m[6], own_req + m[5], own_n + 1
                    else:
                        other, other_n = other + m[6], other_n + 1
                elif m[4] in since:
                    since.discard(m[4])
                else:
                    freed, freed_n = freed + m[6], freed_n + 1
            r["execution"] = {
                "module": holder["module"],
                "number": holder["number"],
                "start_ps": holder["start"],
                "in_use_at_start_bytes": at_start,
                "own_chunk_bytes": own,
                "own_requested_bytes": own_req,
                "own_allocations": own_n,
                "other_chunk_bytes": other,
                "other_allocations": other_n,
                "freed_bytes": freed,
                "freed_count": freed_n,
                "unexplained_bytes": peak[7] - (at_start + own + other - freed),
            }
        out["allocators"][name] = r

    # The program: executions per module (by program id where several modules share a name).
    by_name = collections.Counter(x["module"] for x in executions if x["module"])
    names_of = collections.defaultdict(list)
    for m in modules:
        names_of[m.rsplit("(", 1)[0]].append(m)
    per_module = {}
    shared = [n for n in by_name if len(names_of.get(n, [])) > 1]
    if shared:
        progs = json.loads(
            subprocess.run(
                ["/usr/bin/python3", os.path.join(HERE, "execution_programs.py"), a.file, "--json"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )["programs"]
        for n in shared:
            for m in names_of[n]:
                pid = m.rsplit("(", 1)[1][:-1]
                if progs.get(pid):
                    per_module[m] = progs[pid]
    for n, count in by_name.items():
        if n not in shared and names_of.get(n):
            per_module[names_of[n][0]] = count
    if os.environ.get("RUNTIME_PEAK_DEBUG"):
        print(per_module, by_name, file=sys.stderr)
    total = sum(per_module.values())
    most = max(per_module.values(), default=0)
    steps = sorted(m for m in per_module if modules.get(m))
    out["program"] = {
        "modules": len(modules),
        "modules_executed": len(per_module),
        "executions": total,
        "most_executions": most,
        "steps_executed": len(steps),
        "eager": len(modules) >= 5 and len(per_module) >= 3 and not steps and most * 2 <= total,
    }
    if a.donation:
        starts = {int(v) for v in a.donation[0].split(",")}
        out["donation"] = donation(
            [x for x in executions if x["start"] in starts],
            [int(v) for v in a.donation[1].split(",")],
            [int(v) for v in a.donation[2].split(",")],
            executions,
            memory,
        )
    if a.json:
        print(json.dumps(out, sort_keys=True))
        return
    for name, r in out["allocators"].items():
        print(
            "%s: peak %d bytes at %d ps, %d live; %d of %d allocations rounded up by >= 1 MiB (%d bytes)"
            % (
                name,
                r["peak_bytes"],
                r["time_ps"],
                r["live_allocations"],
                r["rounded_up_1mib"],
                r["allocations"],
                r["rounded_up_1mib_bytes"],
            )
        )
        x = r["execution"]
        if x:
            print(
                "  inside %s execution %d: %d at start + %d own (%d requested) + %d other - %d "
                "freed, %d left over"
                % (
                    x["module"],
                    x["number"],
                    x["in_use_at_start_bytes"],
                    x["own_chunk_bytes"],
                    x["own_requested_bytes"],
                    x["other_chunk_bytes"],
                    x["freed_bytes"],
                    x["unexplained_bytes"],
                )
            )
        else:
            print("  outside every execution")
    print("program: %r" % out["program"])


if __name__ == "__main__":
    main()
