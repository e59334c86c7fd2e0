#!/usr/bin/python3
"""Bytes reserved over time (the allocator's bytes_reserved stat, XProf's reserved series) in the report.

Reads the raw allocator events with Python's protobuf (tests/data/tools/compile_protos.py; no oomscope code)
and checks `report --json -` and the text against them: on the TPU capture, whose allocators reserve up to
20 GiB, each device allocator's reserved peak, its time and how many events carry the stat; on a copy of the
elementwise capture with the stat removed from every allocator event, that the report says the capture
carries no reserved figure (and null in the JSON); with it removed from every other event, how many carry it.
Usage: test_reserved_series.py OOMSCOPE_CLI DATA_DIR
"""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools"))
from compile_protos import compile_protos  # noqa: E402

MEMORY = ("MemoryAllocation", "MemoryDeallocation")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def report(cli, path):
    json_out = subprocess.run(
        [cli, "report", path, "--json", "-"], capture_output=True, text=True, check=True
    )
    text = subprocess.run([cli, "report", path], capture_output=True, text=True, check=True)
    return json.loads(json_out.stdout)["hosts"][0], text.stdout


def memory_events(space):
    """(plane, event, {stat name: stat}) of every allocator event of /host:CPU."""
    for plane in space.planes:
        if plane.name != "/host:CPU":
            continue
        stats = {k: v.name for k, v in plane.stat_metadata.items()}
        events = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for e in line.events:
                if events.get(e.metadata_id) in MEMORY:
                    yield plane, line, e, {stats.get(s.metadata_id): s for s in e.stats}


def value(stat):
    return getattr(stat, stat.WhichOneof("value"))


def main():
    cli, data = sys.argv[1], sys.argv[2]
    # The independent reading needs Debian's python3-protobuf, as tests/data/tools' scripts do.
    if importlib.util.find_spec("google") is None and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__), *sys.argv[1:]])
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp, ("xplane.proto",))
        xp = importlib.import_module("xplane_pb2")

        # The TPU capture: per allocator (TPU_<index_on_host>), the largest bytes_reserved and its first time.
        space = xp.XSpace()
        with open(os.path.join(data, "jax_tpu_v6e_inference.xplane.pb"), "rb") as f:
            space.ParseFromString(f.read())
        theirs = {}
        for _, line, e, st in sorted(
            memory_events(space), key=lambda x: x[1].timestamp_ns * 1000 + x[2].offset_ps
        ):
            name = "TPU_%d" % value(st["index_on_host"])
            t = line.timestamp_ns * 1000 + e.offset_ps
            r = theirs.setdefault(name, {"events": 0, "peak": -1, "time": None})
            r["events"] += "bytes_reserved" in st
            if "bytes_reserved" in st and value(st["bytes_reserved"]) > r["peak"]:
                r["peak"], r["time"] = value(st["bytes_reserved"]), t
        host, text = report(cli, os.path.join(data, "jax_tpu_v6e_inference.xplane.pb"))
        mine = {a["name"]: a for a in host["runtime"]["allocators"]}
        check(sorted(mine) == sorted(theirs), "TPU: the same allocators: %s" % sorted(theirs))
        for name, r in sorted(theirs.items()):
            a = mine.get(name, {})
            got = (a.get("reserved_events"), a.get("peak_bytes_reserved"), a.get("peak_reserved_time_ps"))
            check(got == (r["events"], r["peak"], r["time"]), f"TPU {name}: reserved {got} == {r}")
            check(
                a.get("reserved_series") and max(p[1] for p in a["reserved_series"]) == r["peak"],
                f"TPU {name}: the reserved series keeps its peak",
            )
        peak = host["runtime_peak"]["allocator"]
        check(
            f"  bytes reserved on {peak} (the allocator's bytes_reserved stat): peak " in text
            and "read on every event [read]" in text,
            "TPU: the text gives the reserved peak and where",
        )

        # The elementwise capture without the stat on every event, then on every other one.
        source = os.path.join(data, "jax0.8_rocm_mi300x_elementwise.xplane.pb")
        for every, words in (
            (1, "the capture carries no reserved figure"),
            (2, " events (the others carry none)"),
        ):
            space = xp.XSpace()
            with open(source, "rb") as f:
                space.ParseFromString(f.read())
            n = 0
            for _, _, e, st in memory_events(space):
                if n % every == 0:
                    gone = st["bytes_reserved"].metadata_id
                    keep = [s for s in e.stats if s.metadata_id != gone]
                    del e.stats[:]
                    e.stats.extend(keep)
                n += 1
            path = os.path.join(tmp, "no_reserved_%d.xplane.pb" % every)
            with open(path, "wb") as f:
                f.write(space.SerializeToString())
            host, text = report(cli, path)
            bfc = next(a for a in host["runtime"]["allocators"] if a["name"] == "GPU_0_bfc")
            check(words in text, f"stat removed from 1 in {every} events: the text says {words!r}")
            if every == 1:
                check(
                    bfc["reserved_events"] == 0 and bfc["peak_bytes_reserved"] is None,
                    "no stat: reserved_events 0 and no peak in the JSON",
                )
            else:
                total = bfc["allocations"] + bfc["deallocations"]
                check(
                    0 < bfc["reserved_events"] < total
                    and f"on {bfc['reserved_events']} of its {total} events" in text,
                    f"stat on some events: {bfc['reserved_events']} of {total} counted and said",
                )
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
