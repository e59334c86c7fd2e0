#!/usr/bin/python3
"""Independent program id of each host execution, for oomscope's runtime tests.

Reads a capture with Python's protobuf (classes compiled from core/proto/xplane.proto at run time) and,
for every ExecuteHelper span on /host:CPU, collects the driver-API launches (host events whose name
starts with "hip" or "cu" and that carry a correlation_id) that start inside the span, on any thread.
Each launch names its program by its own program_id stat or, failing that, through the device event
with the same correlation_id. The most frequent program is the execution's. Prints one line per program
id: how many executions it has. Shares no code with oomscope's C++.

    /usr/bin/python3 tests/data/tools/execution_programs.py CAPTURE.xplane.pb [--json]
"""

import argparse
import collections
import importlib
import json
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
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp, ("xplane.proto",))
        xp = importlib.import_module("xplane_pb2")
        space = xp.XSpace()
        space.ParseFromString(open(a.file, "rb").read())
    program_of_correlation = {}
    helpers, launches = [], []
    for plane in space.planes:
        names = {k: v.name for k, v in plane.stat_metadata.items()}
        events = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for e in line.events:
                t = line.timestamp_ns * 1000 + e.offset_ps
                stats = {names.get(s.metadata_id): value(s, names) for s in e.stats}
                name = events.get(e.metadata_id, "")
                if plane.name.startswith("/device:"):
                    if stats.get("correlation_id") and stats.get("program_id"):
                        program_of_correlation[int(stats["correlation_id"])] = int(stats["program_id"]) % (1 << 64)
                elif plane.name == "/host:CPU":
                    if name.endswith("LoadedExecutable::ExecuteHelper") or name == "LocalExecutable::Execute":
                        helpers.append((t, t + e.duration_ps))
                    elif (name.startswith("hip") or name.startswith("cu")) and stats.get("correlation_id"):
                        pid = stats.get("program_id")
                        launches.append((t, int(stats["correlation_id"]), int(pid) % (1 << 64) if pid else None))
    helpers.sort()
    top = []
    for h in helpers:  # nested helpers of the same execution count once
        if not top or h[0] > top[-1][1]:
            top.append(h)
    counts = collections.Counter()
    for start, end in top:
        votes = collections.Counter()
        for t, corr, pid in launches:
            if start <= t <= end:
                pid = pid or program_of_correlation.get(corr)
                if pid:
                    votes[pid] += 1
        if votes:
            counts[max(votes.items(), key=lambda kv: (kv[1], -kv[0]))[0]] += 1
    if a.json:
        print(json.dumps({str(k): v for k, v in sorted(counts.items())}, sort_keys=True))
    else:
        for k, v in sorted(counts.items()):
            print("program %d: %d executions" % (k, v))


if __name__ == "__main__":
    main()
