#!/usr/bin/python3
"""Independent reading of the plan-vs-runtime timeline figures, for oomscope's plan timeline tests.

For every host execution (an ExecuteHelper span on /host:CPU) of the program given, finds the kernels it
launched: the driver-API launches (host events named hip*/cu* with a correlation_id, on any thread) that
start inside the span, joined by correlation_id to device events of the device plane given (the device of
the allocator, GPU_<n>_bfc -> /device:GPU:<n>) whose program_id is the program. Only executions whose
first allocation inside the span, on the span's thread, comes from the allocator given are listed (the
report's "executions on GPU_0_bfc"). Prints per execution its start, its end (the later of the span's end
and its last kernel's end), the first kernel start of each HLO instruction asked for (stat hlo_op), the
allocator's bytes in use just before the start and the highest bytes_allocated of the allocator's events
inside [start, end].
The planned peak comes from plan_peak.py. Shares no code with oomscope's C++.

    /usr/bin/python3 tests/data/tools/plan_timeline.py CAPTURE.xplane.pb PROGRAM_ID ALLOCATOR PLANE \
        [INSTR ...]
"""

import argparse
import importlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_protos import compile_protos  # noqa: E402


def value(stat, names):
    kind = stat.WhichOneof("value")
    if kind == "ref_value":
        return names.get(stat.ref_value, "")
    return getattr(stat, kind) if kind else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("program", type=int)
    ap.add_argument("allocator")
    ap.add_argument("plane")
    ap.add_argument("instructions", nargs="*")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp, ("xplane.proto",))
        xp = importlib.import_module("xplane_pb2")
        space = xp.XSpace()
        space.ParseFromString(open(a.file, "rb").read())
    device = {}  # correlation id -> (start, end, hlo_op)
    helpers, launches, memory, allocations = [], [], [], []
    for plane in space.planes:
        names = {k: v.name for k, v in plane.stat_metadata.items()}
        events = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for e in line.events:
                t = line.timestamp_ns * 1000 + e.offset_ps
                stats = {names.get(s.metadata_id): value(s, names) for s in e.stats}
                name = events.get(e.metadata_id, "")
                if plane.name == a.plane:
                    pid = stats.get("program_id")
                    if stats.get("correlation_id") and pid is not None and int(pid) % (1 << 64) == a.program:
                        device[int(stats["correlation_id"])] = (t, t + e.duration_ps, stats.get("hlo_op", ""))
                elif plane.name == "/host:CPU":
                    if name.endswith("LoadedExecutable::ExecuteHelper") or name == "LocalExecutable::Execute":
                        helpers.append((t, t + e.duration_ps, line.id))
                    elif (name.startswith("hip") or name.startswith("cu")) and stats.get("correlation_id"):
                        launches.append((t, line.id, int(stats["correlation_id"])))
                    elif name in ("MemoryAllocation", "MemoryDeallocation"):
                        alloc = name == "MemoryAllocation"
                        allocations.append((t, line.id, stats.get("allocator_name"))) if alloc else None
                        if stats.get("allocator_name") == a.allocator:
                            size = int(stats.get("allocation_bytes", 0))
                            after = int(stats["bytes_allocated"])
                            memory.append((t, after, after - size if alloc else after + size))
    memory.sort()
    helpers.sort()
    number = {}
    allocations.sort()
    for start, end, tid in helpers:
        mine = [n for (t, l, n) in allocations if l == tid and start <= t <= end]
        if not mine or mine[0] != a.allocator:
            continue
        kernels = [device[c] for (t, l, c) in launches if start <= t <= end and c in device]
        if not kernels:
            continue
        number[tid] = number.get(tid, 0) + 1
        stop = max([end] + [k[1] for k in kernels])
        before = [b for (t, b, _) in memory if t < start]
        inside = [b for (t, b, _) in memory if start <= t <= stop]
        at_start = before[-1] if before else memory[0][2]
        peak = max(([at_start] if at_start is not None else []) + inside, default=None)
        print(
            f"execution line={tid} number={number[tid]} start={start} end={stop} kernels={len(kernels)} "
            f"in_use_at_start={at_start} runtime_peak={peak}"
        )
        for instr in a.instructions:
            times = [k[0] for k in kernels if k[2] == instr]
            print(f"  {instr} {min(times) if times else None}")


if __name__ == "__main__":
    main()
