#!/usr/bin/python3
"""Independent program id of each host execution, for oomscope's runtime tests.

Reads a capture with Python's protobuf (classes compiled from core/proto/xplane.proto at run time) and,
for every ExecuteHelper span on /host:CPU, collects the driver-API launches (host events whose name
starts with "hip" or "cu" and that carry a correlation_id) that start inside the span, on any thread.
A launch's device_id names a device plane: the plane on which its correlation_id's device event lies
(learned per device_id from the correlation ids found on one plane only), else the plane whose name ends
in ":<device_id>". The execution's own device is the plane of the allocator of its first allocation on its
thread ("GPU_<n>_bfc" -> "/device:GPU:<n>"); when known, launches to another device are skipped. Each launch
names its program by its own program_id stat or, failing that, through the device event with the same
correlation_id on the launch's plane. One program: the execution's; several: ambiguous (counted apart,
never credited). Prints one line per program id: how many executions it has, and the ambiguous count.
Shares no code with oomscope's C++.

    /usr/bin/python3 tests/data/tools/execution_programs.py CAPTURE.xplane.pb [--json]
"""


import argparse
import collections
import importlib
import json
import os
import re
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
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp, ("xplane.proto",))
        xp = importlib.import_module("xplane_pb2")
        space = xp.XSpace()
        space.ParseFromString(open(a.file, "rb").read())
    device_events = []  # (plane name, correlation id, program id)
    helpers, launches, allocations = [], [], []
    plane_names = [p.name for p in space.planes]
    for plane in space.planes:
        names = {k: v.name for k, v in plane.stat_metadata.items()}
        events = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for e in line.events:
                t = line.timestamp_ns * 1000 + e.offset_ps
                stats = {names.get(s.metadata_id): value(s, names) for s in e.stats}
                name = events.get(e.metadata_id, "")
                if plane.name.startswith("/device:"):
                    if stats.get("correlation_id"):
                        pid = stats.get("program_id")
                        device_events.append(
                            (plane.name, int(stats["correlation_id"]), int(pid) % (1 << 64) if pid else None)
                        )
                elif plane.name == "/host:CPU":
                    if name.endswith("LoadedExecutable::ExecuteHelper") or name == "LocalExecutable::Execute":
                        helpers.append((t, t + e.duration_ps, line.id))
                    elif name == "MemoryAllocation":
                        allocations.append((t, line.id, stats.get("allocator_name") or ""))
                    elif (name.startswith("hip") or name.startswith("cu")) and stats.get("correlation_id"):
                        pid = stats.get("program_id")
                        launches.append(
                            (
                                t,
                                int(stats["correlation_id"]),
                                stats.get("device_id"),
                                int(pid) % (1 << 64) if pid else None,
                            )
                        )
    planes_of_correlation = collections.defaultdict(set)
    program_of = {}
    for plane, corr, pid in device_events:
        planes_of_correlation[corr].add(plane)
        if pid:
            program_of.setdefault((plane, corr), pid)
            program_of.setdefault((None, corr), pid)
    votes = collections.defaultdict(collections.Counter)
    for t, corr, dev, pid in launches:
        found = planes_of_correlation.get(corr, set())
        if dev is not None and len(found) == 1:
            votes[dev][next(iter(found))] += 1
    plane_of_device = {}
    for t, corr, dev, pid in launches:
        if dev is None or dev in plane_of_device:
            continue
        if votes[dev]:
            plane_of_device[dev] = votes[dev].most_common(1)[0][0]
        else:
            plane_of_device[dev] = next(
                (p for p in plane_names if p.startswith("/device:") and p.split(":")[-1] == str(dev)), None
            )

    def own_plane(start, end, thread):
        for t, line_id, allocator in allocations:
            if start <= t <= end and line_id == thread:
                digits = re.search(r"\d+", allocator)
                if not digits or "host" in allocator:
                    return None
                kind = allocator[:3]
                return next(
                    (
                        p
                        for p in plane_names
                        if p.startswith("/device:")
                        and p.split(":")[-1] == digits.group()
                        and (kind not in ("GPU", "TPU") or p.split(":")[1] == kind)
                    ),
                    None,
                )
        return None

    modules = set()
    for plane in space.planes:
        if plane.name == "/host:metadata":
            for md in plane.event_metadata.values():
                m = re.search(r"\((\d+)\)$", md.name)
                if m:
                    modules.add(int(m.group(1)))
    helpers.sort()
    top, last_end = [], {}
    for h in helpers:  # nested helpers of the same execution (on one thread) count once
        if h[0] > last_end.get(h[2], -1):
            top.append(h)
            last_end[h[2]] = h[1]
    counts = collections.Counter()
    ambiguous = 0
    for start, end, thread in top:
        mine = own_plane(start, end, thread)
        programs = set()
        for t, corr, dev, pid in launches:
            if not start <= t <= end:
                continue
            plane = plane_of_device.get(dev)
            if mine and plane and plane != mine:
                continue
            pid = pid or program_of.get((plane, corr))
            if pid and (not modules or pid in modules):
                programs.add(pid)
        if len(programs) == 1:
            counts[programs.pop()] += 1
        elif programs:
            ambiguous += 1
    if a.json:
        print(
            json.dumps(
                {"programs": {str(k): v for k, v in sorted(counts.items())}, "ambiguous": ambiguous},
                sort_keys=True,
            )
        )
    else:
        for k, v in sorted(counts.items()):
            print("program %d: %d executions" % (k, v))
        print("ambiguous (launches of several programs): %d executions" % ambiguous)


if __name__ == "__main__":
    main()
