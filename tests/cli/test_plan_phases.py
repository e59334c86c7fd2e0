#!/usr/bin/python3
"""Roles by lifetime and phase peaks: oomscope-cli report --json against tests/data/tools/plan_phases.py.

plan_phases.py reads the capture with Python's protobuf and replays the heap-simulator trace on its own;
this test runs both on the bundled fused-attention capture and requires the same backward start, peak
phase, per-phase temp-heap peaks and the role of every buffer live at the peak.
Usage: test_plan_phases.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "data", "tools", "plan_phases.py")


def main():
    cli, data = sys.argv[1:3]
    failures = []
    for capture, module in (
        ("jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", "jit_loss_fn(17)"),
        ("jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", "jit_forward_3d_conv(15)"),
    ):
        path = os.path.join(data, capture)
        ours = json.loads(
            subprocess.run(
                [cli, "report", path, "--module", module, "--top", "1000", "--json", "-"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        plan = ours["hosts"][0]["plan"]
        theirs = json.loads(
            subprocess.run(
                ["/usr/bin/python3", TOOL, path, "--module", module, "--json"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.splitlines()[0]
        )

        def check(what, a, b):
            if a != b:
                failures.append("%s %s: oomscope %r, plan_phases.py %r" % (capture, what, a, b))

        check("backward start", plan["backward_start_event"], theirs["backward_start"])
        check("peak phase", plan["peak_phase"], theirs["peak_phase"])
        check(
            "phase heap peaks",
            {p["phase"]: (p["temp_heap_bytes"], p["instruction"]) for p in plan["phase_peaks"]},
            {p: (v["heap"], v["instruction"]) for p, v in theirs["phase_heap_peaks"].items()},
        )
        roles = {str(b["logical_buffer_id"]): b["role"] for b in plan["live_at_peak"] if not b["indefinite"]}
        # Workspace (s8 custom-call outputs) is a role the script does not derive; compare the others.
        roles = {k: v for k, v in roles.items() if v != "workspace"}
        check("roles", roles, {k: v for k, v in theirs["roles"].items() if k in roles})
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
