#!/usr/bin/env python3
"""Python's own pickle.load of a snapshot, with an Unpickler that refuses every global and persistent id
(so it is as safe as oomscope's reader), timed; prints {"seconds": S, "segments": N, "trace_entries": M}.

usage: python_pickle_load.py FILE.pickle
"""
import json
import pickle
import sys
import time


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing persistent id")


def main() -> int:
    t0 = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        snap = DataOnly(f).load()
    seconds = time.perf_counter() - t0
    segs = snap["segments"] if isinstance(snap, dict) else snap
    traces = snap.get("device_traces", []) if isinstance(snap, dict) else []
    print(
        json.dumps({"seconds": seconds, "segments": len(segs), "trace_entries": sum(len(t) for t in traces)})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
