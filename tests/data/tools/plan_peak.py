#!/usr/bin/python3
"""Independent heap-peak computation for oomscope's plan tests.

Replays the heap-simulator trace of every module in a capture (.xplane.pb) or a bare serialized
xla.HloProto (.hlo_proto.pb) with the rules of docs/capture-format.md section 6, and prints the
heap peak, its position and the buffers live there. The C++ tests pin the numbers it prints.

It shares no code with oomscope's C++: python classes are generated at run time from core/proto/*.proto
with protoc into a temporary directory, and the replay is written differently (dicts, and the live set at
the peak is found by replaying a second time up to the peak event instead of tracking spans).

Needs Debian's python3-protobuf and protoc. Run with /usr/bin/python3:
    /usr/bin/python3 tests/data/tools/plan_peak.py tests/data/<capture>.xplane.pb [--json]
"""

import argparse
import importlib
import json
import os
import re
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PROTO_DIR = os.path.join(REPO, "core", "proto")

ALLOC, FREE, SHARE_WITH = 0, 1, 2
TYPE_NAMES = [
    "invalid",
    "pred",
    "s8",
    "s16",
    "s32",
    "s64",
    "u8",
    "u16",
    "u32",
    "u64",
    "f16",
    "f32",
    "f64",
    "tuple",
    "opaque",
    "c64",
    "bf16",
    "token",
    "c128",
    "f8e5m2",
    "f8e4m3fn",
    "s4",
    "u4",
    "f8e4m3b11fnuz",
    "f8e5m2fnuz",
    "f8e4m3fnuz",
    "s2",
    "u2",
    "f8e4m3",
    "f8e3m4",
    "s1",
    "u1",
    "f4e2m1fn",
    "f8e8m0fnu",
    "buffer",
]


def load_protos(tmp):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compile_protos import compile_protos

    compile_protos(tmp, ("hlo.proto", "xplane.proto"))
    return importlib.import_module("hlo_pb2"), importlib.import_module("xplane_pb2")


def hlo_protos_from_file(path, hlo_pb2, xplane_pb2):
    data = open(path, "rb").read()
    if path.endswith(".hlo_proto.pb"):
        proto = hlo_pb2.HloProto()
        proto.ParseFromString(data)
        return [(proto.hlo_module.name, proto.hlo_module.id, proto)]
    space = xplane_pb2.XSpace()
    space.ParseFromString(data)  # raises DecodeError for a damaged file
    out = []
    for plane in space.planes:
        if plane.name != "/host:metadata":
            continue
        stat_ids = {k for k, v in plane.stat_metadata.items() if v.name in ("Hlo Proto", "HLO Proto")}
        for key in sorted(plane.event_metadata):
            meta = plane.event_metadata[key]
            for stat in meta.stats:
                if stat.metadata_id in stat_ids and stat.WhichOneof("value") == "bytes_value":
                    proto = hlo_pb2.HloProto()
                    proto.ParseFromString(stat.bytes_value)
                    m = re.search(r"\((\d+)\)$", meta.name)
                    program_id = int(m.group(1)) if m else key
                    out.append((proto.hlo_module.name, program_id, proto))
    out.sort(key=lambda item: item[1])
    return out


def shape_text(shape, index):
    for i in index:
        if i >= len(shape.tuple_shapes):
            break
        shape = shape.tuple_shapes[i]
    if shape.element_type == 13 or (shape.element_type == 0 and len(shape.tuple_shapes)):
        return "(" + ", ".join(shape_text(s, []) for s in shape.tuple_shapes) + ")"
    t = shape.element_type
    name = TYPE_NAMES[t] if 0 <= t < len(TYPE_NAMES) else "type<%d>" % t
    return "%s[%s]" % (name, ",".join(str(d) for d in shape.dimensions))


def indefinite(a):
    return a.is_thread_local or a.is_entry_computation_parameter or a.is_constant or a.maybe_live_out


def simulate(events, size_of, stop_at=None):
    """Returns (peak, peak_index, live) where live maps root id -> display id at stop_at (if given)."""
    parent, refs, live = {}, {}, {}
    heap = peak = 0
    peak_index = -1

    def root(b):
        while b in parent:
            b = parent[b]
        return b

    for i, e in enumerate(events):
        b = e.buffer_id
        if b not in size_of:
            pass
        elif e.kind == ALLOC:
            r = root(b)
            refs[r] = refs.get(r, 0) + 1
            heap += size_of[b]
            live[b] = b
        elif e.kind == FREE:
            r = root(b)
            refs[r] = refs.get(r, 0) - 1
            if refs[r] == 0:
                heap -= size_of[r]
                live.pop(r, None)
            elif refs[r] < 0:
                refs[r] = 0
        elif e.kind == SHARE_WITH and e.share_with_canonical_id in size_of:
            r = root(e.share_with_canonical_id)
            if r != b:
                parent[b] = e.share_with_canonical_id
                refs[r] = refs.get(r, 0) + 1
                if refs[r] == 1:
                    heap += size_of[r]
                    live[r] = b
        if heap > peak:
            peak, peak_index = heap, i
        if stop_at is not None and i == stop_at:
            return peak, peak_index, dict(live)
    return peak, peak_index, live


def analyse(proto, color=0):
    ba = proto.buffer_assignment
    result = {"has_buffer_assignment": proto.HasField("buffer_assignment")}
    size_of = {lb.id: lb.size for lb in ba.logical_buffers}
    color_of = {lb.id: lb.color for lb in ba.logical_buffers}
    alloc_of = {}
    for a in ba.buffer_allocations:
        for x in a.assigned:
            alloc_of.setdefault(x.logical_buffer_id, a.index)
    allocs = [a for a in ba.buffer_allocations if a.color == color]
    indefinite_bytes = sum(a.size for a in allocs if indefinite(a))
    result["indefinite_bytes"] = indefinite_bytes
    result["temp_bytes"] = sum(a.size for a in allocs if not indefinite(a))
    result["parameter_bytes"] = sum(a.size for a in allocs if a.is_entry_computation_parameter)

    owners = {}
    for i, t in enumerate(ba.heap_simulator_traces):
        if len(t.events) and t.events[0].buffer_id in alloc_of:
            owners[alloc_of[t.events[0].buffer_id]] = i
    chosen = -1
    for a in allocs:
        if not indefinite(a) and a.index in owners:
            chosen = owners[a.index]
            break
    if chosen < 0:
        best = 0
        for i, t in enumerate(ba.heap_simulator_traces):
            n = sum(1 for e in t.events if color_of.get(e.buffer_id) == color)
            if n > best:
                chosen, best = i, n
    result["trace"] = chosen
    if chosen < 0:
        result.update(heap_peak=0, peak_index=-1, peak_instruction="", peak=indefinite_bytes, live=[])
        return result
    events = ba.heap_simulator_traces[chosen].events
    peak, peak_index, _ = simulate(events, size_of)
    _, _, live = simulate(events, size_of, stop_at=peak_index) if peak_index >= 0 else (0, 0, {})
    instructions = {}
    for c in proto.hlo_module.computations:
        for ins in c.instructions:
            instructions[ins.id] = ins
    lbs = {lb.id: lb for lb in ba.logical_buffers}
    rows = []
    for r, display in sorted(live.items(), key=lambda kv: kv[0]):
        lb = lbs[display]
        ins = instructions.get(lb.defined_at.instruction_id)
        rows.append(
            {
                "id": display,
                "root": r,
                "size": size_of[r],
                "instruction": ins.name if ins else lb.defined_at.instruction_name,
                "shape": shape_text(ins.shape, list(lb.defined_at.shape_index)) if ins else "",
            }
        )
    result.update(
        heap_peak=peak,
        peak_index=peak_index,
        peak_instruction=events[peak_index].instruction_name if peak_index >= 0 else "",
        peak=peak + indefinite_bytes,
        events=len(events),
        live=rows,
    )
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--json", action="store_true", help="one JSON object per module")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hlo_pb2, xplane_pb2 = load_protos(tmp)
        failed = 0
        for path in args.files:
            try:
                modules = hlo_protos_from_file(path, hlo_pb2, xplane_pb2)
            except Exception as error:  # a damaged capture: say so and go on with the others
                print("%s: cannot read: %s" % (path, error), file=sys.stderr)
                failed += 1
                continue
            for name, program_id, proto in modules:
                r = analyse(proto)
                r.update(file=os.path.basename(path), module=name, program_id=program_id)
                if args.json:
                    print(json.dumps(r, sort_keys=True))
                    continue
                print(
                    "%s %s(%d): trace %d, heap peak %d at event %d (%s), indefinite %d, peak %d, %d live"
                    % (
                        r["file"],
                        name,
                        program_id,
                        r["trace"],
                        r["heap_peak"],
                        r["peak_index"],
                        r["peak_instruction"],
                        r["indefinite_bytes"],
                        r["peak"],
                        len(r["live"]),
                    )
                )
                for row in r["live"]:
                    print(
                        "    buffer %d (root %d) %d bytes %s %s"
                        % (row["id"], row["root"], row["size"], row["instruction"], row["shape"])
                    )
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
