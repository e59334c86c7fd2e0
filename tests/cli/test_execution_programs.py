#!/usr/bin/python3
"""Executions per module by program id: oomscope-cli report --json against tests/data/tools/execution_programs.py.

The script reads the raw events with Python's protobuf and credits each host execution to the program
its kernel launches name; oomscope must report the same number of executions matched by program id
for every module. Usage: test_execution_programs.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools", "execution_programs.py")


def main():
    cli, data = sys.argv[1:3]
    failures = []
    for capture in ("jax0.8_rocm_mi300x_gemm.xplane.pb", "jax0.8_rocm_mi300x_elementwise.xplane.pb",
                    "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb"):
        path = os.path.join(data, capture)
        report = json.loads(subprocess.run([cli, "report", path, "--json", "-"], check=True, capture_output=True,
                                           text=True).stdout)
        ours = {m["program_id"]: m["executions_by_program_id"] for m in report["hosts"][0]["modules"]
                if m["executions_by_program_id"]}
        theirs = json.loads(subprocess.run(["/usr/bin/python3", TOOL, path, "--json"], check=True,
                                           capture_output=True, text=True).stdout)
        if ours != theirs:
            failures.append("%s: oomscope %r, execution_programs.py %r" % (capture, ours, theirs))
        if not theirs:
            failures.append("%s: the script found no execution by program id; the test would prove nothing" % capture)
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
