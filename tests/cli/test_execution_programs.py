#!/usr/bin/python3
"""Executions per module by program id: oomscope-cli report --json against
tests/data/tools/execution_programs.py.

The script reads the raw events with Python's protobuf and credits each host execution to the program
its kernel launches on its own device name (several programs: ambiguous); oomscope must report the same
number of executions matched by program id for every module, and the same number of ambiguous ones.
Usage: test_execution_programs.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

TOOL = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools", "execution_programs.py"
)


def main():
    cli, data = sys.argv[1:3]
    failures = []
    for capture in (
        "jax0.8_rocm_mi300x_gemm.xplane.pb",
        "jax0.8_rocm_mi300x_elementwise.xplane.pb",
        "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
        "jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
        "hand/hand_same_name_interleaved.xplane.pb",
        "hand/hand_two_devices.xplane.pb",
    ):
        path = os.path.join(data, capture)
        report = json.loads(
            subprocess.run(
                [cli, "report", path, "--json", "-"], check=True, capture_output=True, text=True
            ).stdout
        )
        modules = report["hosts"][0]["modules"]
        ours = {
            str(m["program_id"]): m["executions_by_program_id"]
            for m in modules
            if m["executions_by_program_id"]
        }
        ours_ambiguous = sum(m["executions_ambiguous"] for m in modules)
        theirs = json.loads(
            subprocess.run(
                ["/usr/bin/python3", TOOL, path, "--json"], check=True, capture_output=True, text=True
            ).stdout
        )
        if ours != theirs["programs"]:
            failures.append("%s: oomscope %r, execution_programs.py %r" % (capture, ours, theirs["programs"]))
        if ours_ambiguous != theirs["ambiguous"]:
            failures.append(
                "%s: ambiguous executions: oomscope %d, execution_programs.py %d"
                % (capture, ours_ambiguous, theirs["ambiguous"])
            )
        if not theirs["programs"]:
            failures.append(
                "%s: the script found no execution by program id; the test would prove nothing" % capture
            )
    # Two GPUs run jit_a (21) and jit_b (22) at once: each execution is credited to its own device's
    # program, and jit_c (23), which allocated nothing, is ambiguous (launches of 22 and 23 in its window).
    two = json.loads(
        subprocess.run(
            ["/usr/bin/python3", TOOL, os.path.join(data, "hand/hand_two_devices.xplane.pb"), "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    if two != {"programs": {"21": 3, "22": 4}, "ambiguous": 1}:
        failures.append("hand_two_devices: execution_programs.py says %r" % two)
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
