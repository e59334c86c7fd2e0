#!/usr/bin/python3
"""Independent phases and roles by lifetime for oomscope's plan tests.

For every module of a capture: the first and last heap-trace event of an instruction whose JAX name
stack contains "transpose(" (the backward), the phase of the heap peak, the highest heap point of each
phase, and for each buffer live at the peak its role by name stack AND lifetime (a "jvp(" buffer freed
before the backward starts is "forward-transient", otherwise "forward-kept").

It shares no code with oomscope's C++ (plan_peak.py's proto loading and peak search only). Run with
/usr/bin/python3:  tests/data/tools/plan_phases.py CAPTURE.xplane.pb [--module NAME] [--json]
"""

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan_peak  # noqa: E402


def phases(proto):
    ba = proto.buffer_assignment
    ins = {}
    for c in proto.hlo_module.computations:
        for i in c.instructions:
            ins.setdefault(i.name, i)
    r = plan_peak.analyse(proto)
    if r["trace"] < 0:
        return None
    events = ba.heap_simulator_traces[r["trace"]].events
    backward = [
        k
        for k, e in enumerate(events)
        if e.instruction_name in ins and "transpose(" in ins[e.instruction_name].metadata.op_name
    ]
    start, end = (backward[0], backward[-1]) if backward else (-1, -1)

    def phase(k):
        if start < 0:
            return "no backward"
        return "forward" if k < start else ("backward" if k <= end else "update")

    size = {lb.id: lb.size for lb in ba.logical_buffers}
    # heap after each event, and the events that free each root (replayed here once more, by hand)
    parent, refs, freed_at, heap, curve = {}, {}, {}, 0, []

    def root(b):
        while b in parent:
            b = parent[b]
        return b

    for k, e in enumerate(events):
        b = e.buffer_id
        if b in size and e.kind == plan_peak.ALLOC:
            refs[b] = refs.get(b, 0) + 1
            heap += size[b]
        elif b in size and e.kind == plan_peak.FREE:
            x = root(b)
            refs[x] = refs.get(x, 0) - 1
            if refs[x] == 0:
                heap -= size[x]
                freed_at.setdefault(x, []).append(k)
        elif b in size and e.kind == plan_peak.SHARE_WITH and e.share_with_canonical_id in size:
            x = root(e.share_with_canonical_id)
            if x != b:
                parent[b] = e.share_with_canonical_id
                refs[x] = refs.get(x, 0) + 1
                if refs[x] == 1:
                    heap += size[x]
        curve.append(heap)
    best = {}
    for k, h in enumerate(curve):
        p = phase(k)
        if p not in best or h > best[p][0]:
            best[p] = (h, k, events[k].instruction_name)
    peak_k = r["peak_index"]
    roles = {}
    for row in r["live"]:
        i = ins.get(row["instruction"])
        stack = i.metadata.op_name if i else ""
        frees = [k for k in freed_at.get(row["root"], []) if k > peak_k]
        freed = frees[0] if frees else -1
        if "transpose(" in stack:
            role = "backward"
        elif "jvp(" in stack:
            role = "forward-transient" if (start < 0 or 0 <= freed < start) else "forward-kept"
        else:
            role = "other"
        roles[row["id"]] = role
    return {
        "backward_start": start,
        "backward_end": end,
        "peak_index": peak_k,
        "peak_phase": phase(peak_k) if peak_k >= 0 else "",
        "phase_heap_peaks": {p: {"heap": v[0], "event": v[1], "instruction": v[2]} for p, v in best.items()},
        "roles": roles,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--module")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hlo_pb2, xplane_pb2 = plan_peak.load_protos(tmp)
        for name, pid, proto in plan_peak.hlo_protos_from_file(a.file, hlo_pb2, xplane_pb2):
            if a.module and a.module not in ("%s(%d)" % (name, pid), name):
                continue
            r = phases(proto)
            if r is None:
                continue
            r["module"] = "%s(%d)" % (name, pid)
            if a.json:
                print(json.dumps(r, sort_keys=True))
                continue
            print(
                "%s: backward %d..%d, peak at %d in the %s"
                % (r["module"], r["backward_start"], r["backward_end"], r["peak_index"], r["peak_phase"])
            )
            for p, v in sorted(r["phase_heap_peaks"].items()):
                print("    %s heap peak %d at event %d (%s)" % (p, v["heap"], v["event"], v["instruction"]))
            for b, role in sorted(r["roles"].items()):
                print("    buffer %d %s" % (b, role))


if __name__ == "__main__":
    main()
