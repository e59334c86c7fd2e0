#!/usr/bin/python3
"""Reference for `oomscope-cli bench report`: the same decoding and totals done by a Python protobuf reader.

Reads one .xplane.pb with Debian's python3-protobuf (full XSpace parse, as a Python tool would), then loops
over every event of every plane and computes what the report's runtime section is built from:
  - event counts per plane;
  - MemoryAllocation / MemoryDeallocation: stats decoded by name (str and ref values), per allocator the
    count of allocations and frees, the largest bytes_allocated, the capacity (in use + available +
    reserved), allocations paired with frees by addr (unmatched frees, never freed);
  - AllocatorRetry::AllocateRaw waits (count, longest);
  - execution spans (<module>:XLA GPU module, *ExecuteHelper, PjitFunction(...)) and device events that
    carry a program_id;
  - the HloProto bytes of /host:metadata (sizes only).
Prints one JSON line: {"file", "seconds" (read + parse + loop, measured inside), "events", "allocators"...}.

usage: python_reader.py CAPTURE
Needs protoc (to compile core/proto/xplane.proto; not timed).
"""
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_schema():
    out = tempfile.mkdtemp(prefix="oomscope_pyreader_")
    sys.path.insert(0, os.path.join(ROOT, "tests", "data", "tools"))
    from compile_protos import compile_protos  # noqa: E402

    compile_protos(out, ("xplane.proto",))
    import xplane_pb2  # noqa: E402

    return xplane_pb2


def stat_value(plane, stat):
    kind = stat.WhichOneof("value")
    if kind == "ref_value":
        md = plane.stat_metadata.get(stat.ref_value)
        return md.name if md is not None else ""
    if kind is None:
        return None
    return getattr(stat, kind)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    xp = load_schema()
    start = time.perf_counter()
    space = xp.XSpace()
    with open(sys.argv[1], "rb") as f:
        space.ParseFromString(f.read())
    events = 0
    allocators = {}
    retries = {"count": 0, "longest_ps": 0}
    executions = 0
    device_program_events = 0
    hlo_bytes = 0
    for plane in space.planes:
        names = {k: v.name for k, v in plane.event_metadata.items()}
        stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
        if plane.name == "/host:metadata":
            for md in plane.event_metadata.values():
                for s in md.stats:
                    if stat_names.get(s.metadata_id) in ("Hlo Proto", "HLO Proto"):
                        hlo_bytes += len(s.bytes_value)
        device = plane.name.startswith("/device:")
        for line in plane.lines:
            for e in line.events:
                events += 1
                name = names.get(e.metadata_id, "")
                if name == "MemoryAllocation" or name == "MemoryDeallocation":
                    st = {stat_names.get(s.metadata_id, ""): stat_value(plane, s) for s in e.stats}
                    key = st.get("allocator_name") or str(st.get("index_on_host", "?"))
                    a = allocators.setdefault(
                        key,
                        {
                            "allocations": 0,
                            "deallocations": 0,
                            "max_in_use": 0,
                            "capacity": 0,
                            "unmatched_frees": 0,
                            "live": {},
                        },
                    )
                    in_use = int(st.get("bytes_allocated") or 0)
                    a["max_in_use"] = max(a["max_in_use"], in_use)
                    a["capacity"] = max(
                        a["capacity"],
                        in_use + int(st.get("bytes_available") or 0) + int(st.get("bytes_reserved") or 0),
                    )
                    addr = st.get("addr")
                    if name == "MemoryAllocation":
                        a["allocations"] += 1
                        a["live"][addr] = int(st.get("allocation_bytes") or 0)
                    else:
                        a["deallocations"] += 1
                        if a["live"].pop(addr, None) is None:
                            a["unmatched_frees"] += 1
                elif name == "AllocatorRetry::AllocateRaw":
                    retries["count"] += 1
                    retries["longest_ps"] = max(retries["longest_ps"], e.duration_ps)
                elif (
                    name.endswith(":XLA GPU module")
                    or name.endswith("ExecuteHelper")
                    or name.startswith("PjitFunction(")
                ):
                    executions += 1
                elif device:
                    for s in e.stats:
                        if stat_names.get(s.metadata_id) == "program_id":
                            device_program_events += 1
                            break
    seconds = time.perf_counter() - start
    out = {
        "file": sys.argv[1],
        "seconds": seconds,
        "events": events,
        "executions": executions,
        "device_program_events": device_program_events,
        "hlo_bytes": hlo_bytes,
        "retries": retries,
        "allocators": {
            k: {kk: (len(vv) if kk == "live" else vv) for kk, vv in v.items()}
            for k, v in sorted(allocators.items())
        },
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
