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


# Bytes of one element without a layout (XLA's ByteWidth: sub-byte types take a byte), by PrimitiveType.
ELEMENT_BYTES = {
    1: 1,
    2: 1,
    3: 2,
    4: 4,
    5: 8,
    6: 1,
    7: 2,
    8: 4,
    9: 8,
    10: 2,
    11: 4,
    12: 8,
    15: 8,
    16: 2,
    18: 16,
}
ELEMENT_BYTES.update({t: 1 for t in range(19, 32)})  # the f8 kinds, s4/u4, s2/u2, s1/u1


def unpadded_size(shape, index):
    """XProf's unpadded size: the shape's bytes with its layout (tiles, padding) reset to the default,
    8 bytes a tuple element (ShapeUtil::ByteSizeOf with pointer size 8); None for an unknown type."""
    for i in index:
        if i >= len(shape.tuple_shapes):
            return None
        shape = shape.tuple_shapes[i]
    if shape.element_type == 13 or (shape.element_type == 0 and len(shape.tuple_shapes)):
        return 8 * len(shape.tuple_shapes)
    if shape.element_type == 17:
        return 0
    if shape.element_type == 14:
        return 8
    if shape.element_type not in ELEMENT_BYTES:
        return None
    n = ELEMENT_BYTES[shape.element_type]
    for d in shape.dimensions:
        n *= d
    return n


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


def analyse(proto, color=0, at=None):
    """The plan's peak, or with `at` the plan just after trace event `at` (the report's --at)."""
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
    instructions = {}
    for c in proto.hlo_module.computations:
        for ins in c.instructions:
            instructions[ins.id] = ins
    lbs = {lb.id: lb for lb in ba.logical_buffers}
    result["memory_spaces"] = memory_space_buffers(proto, color, instructions)
    if chosen < 0:
        result.update(heap_peak=0, peak_index=-1, peak_instruction="", peak=indefinite_bytes, live=[])
        if result["temp_bytes"] == 0:  # nothing to replay: the peak is the indefinite allocations
            every = representative_unpadded(allocs, lbs, instructions)
            result.update(unpadded_heap_peak=0, unpadded_live=None if None in every else sum(every))
        return result
    events = ba.heap_simulator_traces[chosen].events
    peak, peak_index, _ = simulate(events, size_of)
    if at is not None:
        # The heap just after event `at`: replay to it and sum what is live there.
        _, _, live = simulate(events, size_of, stop_at=at)
        peak, peak_index = sum(size_of[r] for r in live), at
    _, _, live = simulate(events, size_of, stop_at=peak_index) if peak_index >= 0 else (0, 0, {})
    rows = []
    for r, display in sorted(live.items(), key=lambda kv: kv[0]):
        lb = lbs[display]
        ins = instructions.get(lb.defined_at.instruction_id)
        root_lb = lbs[r]
        root_ins = instructions.get(root_lb.defined_at.instruction_id)
        rows.append(
            {
                "id": display,
                "root": r,
                "size": size_of[r],
                "unpadded": unpadded_size(root_ins.shape, list(root_lb.defined_at.shape_index))
                if root_ins
                else None,
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
    unpadded = [row["unpadded"] for row in rows]
    result["unpadded_heap_peak"] = None if None in unpadded else sum(unpadded)
    every = unpadded + representative_unpadded(allocs, lbs, instructions)
    result["unpadded_live"] = None if None in every else sum(every)
    return result


def representative_unpadded(allocs, lbs, instructions):
    """Each indefinite allocation is shown by its largest logical buffer (the first of equals): its
    unpadded size, beside the allocation's size that the peak counts; None where it is unknown."""
    out = []
    for a in sorted((a for a in allocs if indefinite(a)), key=lambda a: a.index):
        best = None
        for x in a.assigned:
            lb = lbs.get(x.logical_buffer_id)
            if lb is not None and lb.size > (best.size if best else 0):
                best = lb
        if best is None:
            if a.size:
                out.append(None)
            continue
        ins = instructions.get(best.defined_at.instruction_id)
        out.append(unpadded_size(ins.shape, list(best.defined_at.shape_index)) if ins else None)
    return out


def memory_space_buffers(proto, color, instructions):
    """Every logical buffer of an allocation of another memory space: {space: [(bytes, unpadded, id)]}."""
    ba = proto.buffer_assignment
    lbs = {lb.id: lb for lb in ba.logical_buffers}
    spaces = {}
    for a in ba.buffer_allocations:
        if a.color == color:
            continue
        rows = spaces.setdefault(str(a.color), [])
        for x in a.assigned:
            lb = lbs.get(x.logical_buffer_id)
            if lb is None:
                continue
            ins = instructions.get(lb.defined_at.instruction_id)
            unpadded = unpadded_size(ins.shape, list(lb.defined_at.shape_index)) if ins else None
            rows.append([lb.size, unpadded, lb.id])
    for rows in spaces.values():
        rows.sort(key=lambda row: -row[0])
    return spaces


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--json", action="store_true", help="one JSON object per module")
    parser.add_argument("--at", type=int, help="the plan just after this trace event instead of at the peak")
    parser.add_argument("--module", help="only the module of this program id")
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
                if args.module is not None and str(program_id) != args.module:
                    continue
                r = analyse(proto, at=args.at)
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
