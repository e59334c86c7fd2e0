#!/usr/bin/python3
"""Writes tests/data/two_host/: one run captured on two hosts, made from the real gemm capture.

No public capture holds one run from several hosts (SOURCES.md), so this script makes one from
jax0.8_rocm_mi300x_gemm.xplane.pb (AMD-AGI/TraceLens, MIT): two copies whose host names, clocks and one
added wait differ, the way two workers profiled together would:

  worker-0.xplane.pb  profile started at the gemm capture's own start S. Its line timestamps are written as
                      nanoseconds since the epoch (S + the normalised value), the form that overflows 64-bit
                      picoseconds. One AllocatorRetry::AllocateRaw wait (2 ms) at 9 ms on its clock.
  worker-1.xplane.pb  profile started 6 ms earlier (S - 6 ms), recorded in Task Environment's
                      profile_start_time; line timestamps left normalised to it, as XProf writes them. One
                      wait (2 ms) at 12 ms on its clock.

On one wall clock worker-1 waited first (S + 6 ms) and worker-0 3 ms later (S + 9 ms); by each host's own
clock the order is the other way round (9 ms < 12 ms), so a reader that does not place the hosts on one
clock names the wrong host. Everything else (events, modules, allocator figures) is the gemm capture's.
The output is deterministic: --check compares with the committed files.

    /usr/bin/python3 tests/data/tools/make_two_host_run.py tests/data/two_host
    /usr/bin/python3 tests/data/tools/make_two_host_run.py --check tests/data/two_host
"""

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_protos import compile_protos  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCE = os.path.join(DATA, "jax0.8_rocm_mi300x_gemm.xplane.pb")
MS = 1_000_000  # ns
RETRY = "AllocatorRetry::AllocateRaw"

# (file, hostname, profile start relative to the source's, lines since the epoch?, wait at (own clock, ns))
HOSTS = [
    ("worker-0.xplane.pb", "worker-0", 0, True, 9 * MS),
    ("worker-1.xplane.pb", "worker-1", -6 * MS, False, 12 * MS),
]


def stat_value(plane, name):
    for st in plane.stats:
        if plane.stat_metadata[st.metadata_id].name == name:
            return st
    raise SystemExit("%s: no %s stat in plane %s" % (SOURCE, name, plane.name))


def add_wait(plane, at_ns):
    """One AllocatorRetry wait of 2 ms on the thread that allocates (the line with MemoryAllocation
    events)."""
    md_id = max(plane.event_metadata.keys()) + 1
    plane.event_metadata[md_id].id = md_id
    plane.event_metadata[md_id].name = RETRY
    alloc_ids = {k for k, m in plane.event_metadata.items() if m.name == "MemoryAllocation"}
    line = next(x for x in plane.lines if any(e.metadata_id in alloc_ids for e in x.events))
    events = list(line.events)
    wait = type(events[0])()
    wait.metadata_id = md_id
    wait.offset_ps = (at_ns - line.timestamp_ns) * 1000
    wait.duration_ps = 2 * MS * 1000
    assert wait.offset_ps >= 0
    events.append(wait)
    events.sort(key=lambda e: e.offset_ps)
    del line.events[:]
    line.events.extend(events)


def make(xplane_pb2, out_dir):
    with open(SOURCE, "rb") as f:
        source = f.read()
    written = {}
    for name, host, skew_ns, epoch_lines, wait_ns in HOSTS:
        space = xplane_pb2.XSpace()
        space.ParseFromString(source)
        del space.hostnames[:]
        space.hostnames.append(host)
        env = next(p for p in space.planes if p.name == "Task Environment")
        start = stat_value(env, "profile_start_time")
        stop = stat_value(env, "profile_stop_time")
        start.uint64_value += skew_ns
        stop.uint64_value += skew_ns
        cpu = next(p for p in space.planes if p.name == "/host:CPU")
        add_wait(cpu, wait_ns)  # before the clock change: wait_ns is on the normalised clock
        if epoch_lines:
            for plane in space.planes:
                for line in plane.lines:
                    line.timestamp_ns += start.uint64_value
        data = space.SerializeToString(deterministic=True)
        written[name] = data
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, name), "wb") as f:
                f.write(data)
    return written


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dir")
    parser.add_argument("--check", action="store_true", help="compare with the files in DIR, write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp, names=("xplane.proto",))
        import xplane_pb2  # noqa: E402

        written = make(xplane_pb2, None if args.check else args.dir)
    if args.check:
        stale = []
        for name, data in written.items():
            path = os.path.join(args.dir, name)
            if not os.path.exists(path) or open(path, "rb").read() != data:
                stale.append(path)
        if stale:
            print("differs from what make_two_host_run.py writes: " + ", ".join(stale), file=sys.stderr)
            return 1
        print("two-host run: %d files as written" % len(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
