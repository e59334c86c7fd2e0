#!/usr/bin/python3
"""Independent figures for the captures in tests/data, to check oomscope's reader against.

Uses only Debian's python3-protobuf and a schema built here from the field numbers of
docs/capture-format.md (not oomscope's .proto files), parses every file as a whole message (the
opposite of the C++ reader's in-place scan) and computes, per capture:
  planes (merged by name: lines, events), hostnames, modules of /host:metadata (program id by the
  spec's rules, plan totals of colour 0), allocators (MemoryAllocation/MemoryDeallocation on
  /host:CPU), AllocatorRetry::AllocateRaw count.

usage: independent_figures.py [--json | --cpp] FILE...
  default: a readable summary; --json: one JSON object per file; --cpp: the initializer rows used by
  tests/core/capture/expected_figures.inc.
"""
import json
import re
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
OPT, REP = F.LABEL_OPTIONAL, F.LABEL_REPEATED
I64, U64, DBL, BYT, BOOL, MSG = (
    F.TYPE_INT64,
    F.TYPE_UINT64,
    F.TYPE_DOUBLE,
    F.TYPE_BYTES,
    F.TYPE_BOOL,
    F.TYPE_MESSAGE,
)

# message -> [(name, number, label, type, message type)]; strings are read as bytes so that invalid UTF-8
# never stops the reading.
SCHEMA = {
    "XSpace": [("planes", 1, REP, MSG, "XPlane"), ("hostnames", 4, REP, BYT, None)],
    "XPlane": [
        ("id", 1, OPT, I64, None),
        ("name", 2, OPT, BYT, None),
        ("lines", 3, REP, MSG, "XLine"),
        ("event_metadata", 4, REP, MSG, "EventMdEntry"),
        ("stat_metadata", 5, REP, MSG, "StatMdEntry"),
        ("stats", 6, REP, MSG, "XStat"),
    ],
    "EventMdEntry": [("key", 1, OPT, I64, None), ("value", 2, OPT, MSG, "XEventMetadata")],
    "StatMdEntry": [("key", 1, OPT, I64, None), ("value", 2, OPT, MSG, "XStatMetadata")],
    "XLine": [
        ("id", 1, OPT, I64, None),
        ("timestamp_ns", 3, OPT, I64, None),
        ("events", 4, REP, MSG, "XEvent"),
    ],
    "XEvent": [
        ("metadata_id", 1, OPT, I64, None),
        ("offset_ps", 2, OPT, I64, None),
        ("duration_ps", 3, OPT, I64, None),
        ("stats", 4, REP, MSG, "XStat"),
    ],
    "XStat": [
        ("metadata_id", 1, OPT, I64, None),
        ("double_value", 2, OPT, DBL, None),
        ("uint64_value", 3, OPT, U64, None),
        ("int64_value", 4, OPT, I64, None),
        ("str_value", 5, OPT, BYT, None),
        ("bytes_value", 6, OPT, BYT, None),
        ("ref_value", 7, OPT, U64, None),
    ],
    "XEventMetadata": [
        ("id", 1, OPT, I64, None),
        ("name", 2, OPT, BYT, None),
        ("stats", 5, REP, MSG, "XStat"),
    ],
    "XStatMetadata": [("id", 1, OPT, I64, None), ("name", 2, OPT, BYT, None)],
    "HloProto": [
        ("hlo_module", 1, OPT, MSG, "HloModule"),
        ("buffer_assignment", 3, OPT, MSG, "BufferAssignment"),
    ],
    "HloModule": [
        ("name", 1, OPT, BYT, None),
        ("id", 5, OPT, I64, None),
        ("input_output_alias", 8, OPT, MSG, "IoAlias"),
    ],
    "IoAlias": [("entries", 1, REP, MSG, "AliasEntry")],
    "AliasEntry": [("parameter_number", 2, OPT, I64, None), ("parameter_shape_index", 3, REP, I64, None)],
    "BufferAssignment": [
        ("buffer_allocations", 3, REP, MSG, "Allocation"),
        ("heap_simulator_traces", 4, REP, BYT, None),
    ],
    "Allocation": [
        ("size", 2, OPT, I64, None),
        ("is_thread_local", 3, OPT, BOOL, None),
        ("is_entry_computation_parameter", 5, OPT, BOOL, None),
        ("parameter_number", 6, OPT, I64, None),
        ("maybe_live_out", 7, OPT, BOOL, None),
        ("color", 8, OPT, I64, None),
        ("parameter_shape_index", 10, REP, I64, None),
        ("is_constant", 12, OPT, BOOL, None),
        ("is_parameter_aliased_with_output", 13, OPT, BOOL, None),
    ],
}


def build_classes():
    fd = descriptor_pb2.FileDescriptorProto(
        name="independent_figures.proto", package="indep", syntax="proto2"
    )
    for msg, fields in SCHEMA.items():
        m = fd.message_type.add(name=msg)
        for name, number, label, typ, ref in fields:
            f = m.field.add(name=name, number=number, label=label, type=typ)
            if ref:
                f.type_name = ".indep." + ref
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return {n: factory.GetPrototype(pool.FindMessageTypeByName("indep." + n)) for n in SCHEMA}


CLS = build_classes()


def stat_value(stat, names):
    for k in ("int64_value", "uint64_value", "double_value"):
        if stat.HasField(k):
            return getattr(stat, k)
    if stat.HasField("str_value"):
        return stat.str_value.decode("utf-8", "replace")
    if stat.HasField("ref_value"):
        return names.get(stat.ref_value, "")
    if stat.HasField("bytes_value"):
        return stat.bytes_value
    return None


def plan_totals(hlo_bytes):
    hlo = CLS["HloProto"]()
    hlo.ParseFromString(hlo_bytes)
    declared = {
        (e.parameter_number, tuple(e.parameter_shape_index))
        for e in hlo.hlo_module.input_output_alias.entries
    }
    t = dict(
        parameters=0,
        donated=0,
        outputs=0,
        temp=0,
        constants=0,
        thread_local=0,
        total=0,
        allocations=0,
        heap_traces=len(hlo.buffer_assignment.heap_simulator_traces),
    )
    for a in hlo.buffer_assignment.buffer_allocations:
        if a.color != 0:
            continue
        t["allocations"] += 1
        t["total"] += a.size
        if a.is_entry_computation_parameter:
            t["parameters"] += a.size
            if (
                a.maybe_live_out
                or a.is_parameter_aliased_with_output
                or (a.parameter_number, tuple(a.parameter_shape_index)) in declared
            ):
                t["donated"] += a.size
        elif a.maybe_live_out:
            t["outputs"] += a.size
        elif a.is_thread_local:
            t["thread_local"] += a.size
        elif a.is_constant:
            t["constants"] += a.size
        else:
            t["temp"] += a.size
    return hlo.hlo_module.name.decode(), t


def figures(path):
    space = CLS["XSpace"]()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    planes, modules, mem = {}, {}, []
    retries = 0
    tpu = any(p.name.decode().startswith("/device:TPU:") for p in space.planes)
    for p in space.planes:
        name = p.name.decode()
        names = {e.key: e.value.name.decode("utf-8", "replace") for e in p.stat_metadata}
        ev_names = {e.key: e.value.name.decode("utf-8", "replace") for e in p.event_metadata}
        entry = planes.setdefault(name, {"lines": set(), "events": 0})
        for line in p.lines:
            entry["lines"].add(line.id)
            entry["events"] += len(line.events)
        if name == "/host:metadata":
            for e in p.event_metadata:
                stats = {names.get(s.metadata_id): s for s in e.value.stats}
                hlo = stats.get("Hlo Proto") or stats.get("HLO Proto")
                if hlo is None or not hlo.HasField("bytes_value"):
                    continue
                md_name = e.value.name.decode()
                pid = e.key & 0xFFFFFFFFFFFFFFFF
                suffix = re.search(r"\((\d+)\)$", md_name)
                if "program_id" in stats:
                    pid = int(stat_value(stats["program_id"], names)) & 0xFFFFFFFFFFFFFFFF
                elif suffix:
                    pid = int(suffix.group(1))
                mname, totals = plan_totals(hlo.bytes_value)
                modules.setdefault(pid, (mname, totals))
        if name != "/host:CPU":
            continue
        for line in p.lines:
            for ev in line.events:
                en = ev_names.get(ev.metadata_id, "")
                if en == "AllocatorRetry::AllocateRaw":
                    retries += 1
                if en not in ("MemoryAllocation", "MemoryDeallocation"):
                    continue
                s = {names.get(x.metadata_id): stat_value(x, names) for x in ev.stats}
                alloc = s.get("allocator_name")
                if not alloc:
                    idx = s.get("device_ordinal", s.get("index_on_host"))
                    alloc = (
                        ("TPU_%d" if tpu else "device_%d") % idx if idx is not None else "unnamed allocator"
                    )
                t = line.timestamp_ns * 1000 + ev.offset_ps
                mem.append((t, en == "MemoryAllocation", alloc, s))
    mem.sort(key=lambda m: m[0])  # stable: file order among equal times
    allocators = {}
    for t, is_alloc, alloc, s in mem:
        a = allocators.setdefault(
            alloc, dict(allocations=0, deallocations=0, max_in_use=None, peak=0, capacity=0, largest=0)
        )
        in_use = int(s.get("bytes_allocated", 0))
        if is_alloc:
            a["allocations"] += 1
            a["largest"] = max(a["largest"], int(s.get("allocation_bytes", 0)))
        else:
            a["deallocations"] += 1
        if a["max_in_use"] is None or in_use > a["max_in_use"]:
            a["max_in_use"] = in_use
            a["capacity"] = in_use + int(s.get("bytes_reserved", 0)) + int(s.get("bytes_available", 0))
        a["peak"] = max(a["peak"], int(s.get("peak_bytes_in_use", 0)))
    return {
        "file": path.rsplit("/", 1)[-1],
        "hostnames": [h.decode() for h in space.hostnames],
        "planes": [(n, len(v["lines"]), v["events"]) for n, v in planes.items()],
        "modules": [(pid, m[0], m[1]) for pid, m in sorted(modules.items())],
        "allocators": sorted(allocators.items()),
        "allocator_retries": retries,
    }


def cpp_rows(fig):
    out = ['{"%s", %d, %d, {' % (fig["file"], fig["allocator_retries"], sum(p[2] for p in fig["planes"]))]
    for pid, name, t in fig["modules"]:
        out.append(
            '   M{"%s", %duLL, %d, %d, %d, %d, %d, %d, %d},'
            % (
                name,
                pid,
                t["parameters"],
                t["donated"],
                t["outputs"],
                t["temp"],
                t["constants"],
                t["total"],
                t["allocations"],
            )
        )
    out.append("  }, {")
    for name, a in fig["allocators"]:
        out.append(
            '   A{"%s", %d, %d, %d, %d, %d, %d},'
            % (
                name,
                a["allocations"],
                a["deallocations"],
                a["max_in_use"],
                a["peak"],
                a["capacity"],
                a["largest"],
            )
        )
    out.append("  }},")
    return "\n".join(out)


def main():
    mode = "text"
    files = []
    for a in sys.argv[1:]:
        if a in ("--json", "--cpp"):
            mode = a[2:]
        else:
            files.append(a)
    for path in files:
        fig = figures(path)
        if mode == "json":
            print(json.dumps(fig))
        elif mode == "cpp":
            print(cpp_rows(fig))
        else:
            print(json.dumps(fig, indent=1))


if __name__ == "__main__":
    main()
