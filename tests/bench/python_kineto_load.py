#!/usr/bin/env python3
"""Python's reading of a Kineto / Chrome trace, as a script would do it: gzip.open (for .gz) + json.load,
then the [memory] and [OutOfMemory] events counted; timed. Prints {"seconds": S, "events": N,
"memory_events": M, "oom_events": K}, which `oomscope-cli bench kineto` compares with its own reading.

usage: python_kineto_load.py FILE.json[.gz]
"""
import gzip
import json
import sys
import time


def main() -> int:
    t0 = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(sys.argv[1], "rb") as f:
        doc = json.load(f)
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    names = [e.get("name") for e in events if isinstance(e, dict)]
    seconds = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "seconds": seconds,
                "events": len(names),
                "memory_events": names.count("[memory]"),
                "oom_events": names.count("[OutOfMemory]"),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
