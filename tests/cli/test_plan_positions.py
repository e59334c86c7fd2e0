#!/usr/bin/python3
"""XProf's memory-viewer figures in the report: padded vs unpadded sizes, each other memory space's buffers
(host offload), and the plan at a program position (`report --at POSITION`), against
tests/data/tools/plan_peak.py, which replays the heap-simulator trace with Python's protobuf and computes
XProf's unpadded sizes (ShapeUtil::ByteSizeOf with the default layout) on its own.

For every module of the captures below: `plan.unpadded_heap_peak_bytes` (XProf's peak unpadded heap
without the indefinite allocations), `plan.unpadded_live_bytes` (every buffer live at the peak, unpadded)
and each other memory space's buffers (bytes, unpadded bytes, logical buffer id, largest first) must be the
script's; and at a few positions of each traced module, the heap bytes, the heap buffers live just after
that event and their unpadded sizes. A position past the trace's end must be refused naming the range.
Usage: test_plan_positions.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

from cli_checks import Checks, run

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools", "plan_peak.py")
CAPTURES = (
    "jax_tpu_v6e_inference.xplane.pb",
    "jax0.8_rocm_mi300x_gemm.xplane.pb",
    "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
)

check = Checks()


def script(path, *extra):
    out = subprocess.run(
        ["/usr/bin/python3", TOOL, path, "--json", *extra], capture_output=True, text=True, check=True
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def plan(cli, path, module, *extra):
    p = run(cli, "report", path, "--module", module, "--top", "100000", "--json", "-", *extra)
    return p.returncode, (json.loads(p.stdout)["hosts"][0]["plan"] if p.returncode == 0 else None), p.stderr


def spaces_of(p):
    return {
        str(s["memory_space"]): [
            [b["bytes"], b["unpadded_bytes"], b["logical_buffer_id"]] for b in s["buffers"]
        ]
        for s in p["other_memory_spaces"]
    }


def main():
    cli, data = sys.argv[1], sys.argv[2]
    padded_differs = 0
    for name in CAPTURES:
        path = os.path.join(data, name)
        for want in script(path):
            module = str(want["program_id"])
            label = f"{name} {want['module']}({module})"
            code, got, err = plan(cli, path, module)
            check(code == 0, f"{label}: reported {err.strip()}")
            if code != 0:
                continue
            check(
                got["unpadded_heap_peak_bytes"] == want.get("unpadded_heap_peak"),
                f"{label}: unpadded temp heap at the peak {got['unpadded_heap_peak_bytes']}"
                f" == {want.get('unpadded_heap_peak')}",
            )
            check(
                got["unpadded_live_bytes"] == want.get("unpadded_live"),
                f"{label}: every buffer live at the peak unpadded {got['unpadded_live_bytes']}"
                f" == {want.get('unpadded_live')}",
            )
            padded_differs += got["unpadded_live_bytes"] not in (None, got["whole_peak_bytes"])
            check(spaces_of(got) == want["memory_spaces"], f"{label}: the buffers of each other memory space")
            events = want.get("events", 0)
            if not events:
                continue
            for at in sorted({0, events // 3, want["peak_index"], events - 1}):
                (here,) = script(path, "--module", module, "--at", str(at))
                code, got, err = plan(cli, path, module, "--at", str(at))
                check(code == 0, f"{label} --at {at}: reported {err.strip()}")
                if code != 0:
                    continue
                heap = [b for b in got["live_at_peak"] if not b["indefinite"]]
                check(
                    got["at_position"] == at and got["temp_heap_peak_bytes"] == here["heap_peak"],
                    f"{label} --at {at}: temp heap {got['temp_heap_peak_bytes']} == {here['heap_peak']}",
                )
                check(
                    sorted(b["logical_buffer_id"] for b in heap) == sorted(r["id"] for r in here["live"]),
                    f"{label} --at {at}: the {len(here['live'])} heap buffers live there",
                )
                check(
                    got["unpadded_heap_peak_bytes"] == here["unpadded_heap_peak"],
                    f"{label} --at {at}: unpadded {got['unpadded_heap_peak_bytes']}"
                    f" == {here['unpadded_heap_peak']}",
                )
            p = run(cli, "report", path, "--module", module, "--at", str(events))
            check(
                p.returncode == 1 and f"its positions are 0 .. {events - 1}" in p.stderr and path in p.stderr,
                f"{label} --at {events}: refused, naming the positions: {p.stderr.strip()}",
            )
    # The TPU capture's layouts pad (an f32[] parameter takes 512 bytes): the figures must show it.
    check(padded_differs > 0, f"{padded_differs} module(s) where padded and unpadded differ")
    sys.exit(check.finish(count=True))


if __name__ == "__main__":
    main()
