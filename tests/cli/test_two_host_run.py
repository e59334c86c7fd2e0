#!/usr/bin/python3
"""The two-host run of tests/data/two_host (written by tests/data/tools/make_two_host_run.py from the real
gemm capture): the committed files must be what the script writes, and the reader must keep the wait's time
in both clock forms: worker-0's lines are since the epoch (once an int64 picosecond overflow), worker-1's
are normalised to its profile start.

Expected times come from the script's construction, not from oomscope: worker-0's wait is 9 ms after its
profile start S, counted from S rounded down to a whole second (the reader's base for since-epoch lines);
worker-1's wait is 12 ms into its own (normalised) clock.
Usage: test_two_host_run.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools")
MS_PS = 1_000_000_000  # one millisecond in picoseconds
S = 1771595650217823548  # the gemm capture's profile_start_time (SOURCES.md capture, Task Environment)


def report(cli, path):
    out = subprocess.run([cli, "report", "--json", "-", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("report %s failed (%d): %s" % (path, out.returncode, out.stderr))
    return json.loads(out.stdout)


def main():
    cli, data = sys.argv[1:3]
    run = os.path.join(data, "two_host")
    failures = []
    check = subprocess.run(
        ["/usr/bin/python3", os.path.join(TOOLS, "make_two_host_run.py"), "--check", run],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        failures.append("the committed files are not what make_two_host_run.py writes:\n" + check.stderr)
    expected = {
        "worker-0.xplane.pb": (S % 1_000_000_000) * 1000 + 9 * MS_PS,
        "worker-1.xplane.pb": 12 * MS_PS,
    }
    for name, at_ps in expected.items():
        doc = report(cli, os.path.join(run, name))
        hosts = doc["hosts"] if "hosts" in doc else [doc]
        retry = hosts[0]["runtime"]["allocator_retry"]
        if retry["count"] != 1 or retry["longest_at_ps"] != at_ps or retry["longest_ps"] != 2 * MS_PS:
            failures.append("%s: expected one 2 ms wait at %d ps, got %s" % (name, at_ps, retry))
    for f in failures:
        print("FAIL:", f)
    print("two-host run: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
