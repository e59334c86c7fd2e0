#!/usr/bin/python3
"""The runtime peak's reconciliation, the eager verdict and donation liveness: oomscope-cli report --json
against tests/data/tools/runtime_peak.py, which reads the raw allocator events, execution spans and HLO
with Python's protobuf and shares no code with oomscope.

For each capture: the peak (bytes, time), the execution holding it, in use at its start, its own chunks
still live, other threads' chunks, frees of older chunks, the left-over (0), the allocations live at the
peak, those rounded up by 1 MiB or more, and the program's verdict (modules run, executions, the most of
one module, steps, eager) must agree; and where the report judges donation, its verdict on whether the
donatable parameters' buffers are dead after the calls must be the script's.
Usage: test_runtime_peak.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools", "runtime_peak.py")

CAPTURES = (
    "jax0.8_rocm_mi300x_gemm.xplane.pb",
    "jax0.8_rocm_mi300x_elementwise.xplane.pb",
    "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
    "hand/hand_eager_chunks.xplane.pb",
    "hand/hand_eager_big_temp.xplane.pb",
    "hand/hand_donation_dead.xplane.pb",
    "hand/hand_leak.xplane.pb",
    "hand/hand_same_name_interleaved.xplane.pb",
)

# Captures whose runtime peak is checked but not the program: the script finds executions by GPU spans
# ("ExecuteHelper", ":XLA GPU module"), which the TPU and TensorFlow captures do not have, and the conv3d
# programs' module spans are counted differently (their executions are by program id). The TPU allocators
# have no allocator_name: the script keys them by chip as the reader does (TPU_<n>).
PEAK_ONLY = (
    "jax_tpu_v6e_inference.xplane.pb",
    "jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
    "jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
    "tf2_gpu_v100x8_bert_multiworker.xplane.pb",
)

# (capture, module whose donation is judged, the verdict the script must reach): a case of each verdict.
# jit_add's two inputs were allocated before the capture started (no event names them): the bytes in use
# since then are exactly the two parameters' at every call, so calls 2-5 take the same arrays; "unknown" is
# covered by runtime_peak_test.cpp.
DONATION = (
    ("jax0.8_rocm_mi300x_elementwise.xplane.pb", "live at later calls"),
    ("hand/hand_donation_dead.xplane.pb", "dead after the call"),
)


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main():
    cli, data = sys.argv[1:3]
    failures = []
    checked = 0
    for capture in CAPTURES + PEAK_ONLY:
        path = os.path.join(data, capture)
        host = json.loads(run([cli, "report", path, "--json", "-"]))["hosts"][0]
        theirs = json.loads(run(["/usr/bin/python3", TOOL, path, "--json"]))
        peak = host["runtime_peak"]
        if peak is None:
            failures.append("%s: no runtime_peak in the JSON" % capture)
            continue
        t = theirs["allocators"].get(peak["allocator"])
        if t is None:
            failures.append("%s: the script has no allocator %s" % (capture, peak["allocator"]))
            continue
        for ours_key, their_key in (
            ("bytes", "peak_bytes"),
            ("time_ps", "time_ps"),
            ("live_allocations", "live_allocations"),
            ("allocations", "allocations"),
            ("rounded_up_1mib", "rounded_up_1mib"),
            ("rounded_up_1mib_bytes", "rounded_up_1mib_bytes"),
        ):
            checked += 1
            if peak[ours_key] != t[their_key]:
                failures.append(
                    "%s: %s: oomscope %r, runtime_peak.py %r"
                    % (capture, ours_key, peak[ours_key], t[their_key])
                )
        x, tx = peak["execution"], t["execution"]
        if (x is None) != (tx is None):
            failures.append("%s: execution at the peak: oomscope %r, runtime_peak.py %r" % (capture, x, tx))
        elif x:
            # The script tells modules apart by name only: numbers of a shared name are not comparable.
            shared = "(" in x["module"]
            if x["module"].split("(")[0] != tx["module"] or (not shared and x["number"] != tx["number"]):
                failures.append(
                    "%s: the peak's execution: oomscope %s #%d, runtime_peak.py %s #%d"
                    % (capture, x["module"], x["number"], tx["module"], tx["number"])
                )
            for key in (
                "in_use_at_start_bytes",
                "own_chunk_bytes",
                "own_requested_bytes",
                "own_allocations",
                "other_chunk_bytes",
                "other_allocations",
                "freed_bytes",
                "freed_count",
                "unexplained_bytes",
            ):
                checked += 1
                if x[key] != tx[key]:
                    failures.append(
                        "%s: %s: oomscope %r, runtime_peak.py %r" % (capture, key, x[key], tx[key])
                    )
            if tx["unexplained_bytes"] != 0:
                failures.append(
                    "%s: the events leave %d bytes of the peak unexplained"
                    % (capture, tx["unexplained_bytes"])
                )
        if capture in PEAK_ONLY:
            continue
        program = host["program"]
        for key in ("modules_executed", "executions", "most_executions", "steps_executed"):
            checked += 1
            if program[key] != theirs["program"][key]:
                failures.append(
                    "%s: program %s: oomscope %r, runtime_peak.py %r"
                    % (capture, key, program[key], theirs["program"][key])
                )
        if host["eager"] != theirs["program"]["eager"]:
            failures.append(
                "%s: eager: oomscope %r, runtime_peak.py %r"
                % (capture, host["eager"], theirs["program"]["eager"])
            )
    for capture, verdict in DONATION:
        path = os.path.join(data, capture)
        host = json.loads(run([cli, "report", path, "--json", "-"]))["hosts"][0]
        donation = host["donation_liveness"]
        sizes = donation["sizes"]
        if not sizes:
            failures.append("%s: no donatable parameter; the donation check would prove nothing" % capture)
            continue
        # The module's calls as oomscope matched them (tests/cli/test_execution_programs.py checks that).
        starts = ",".join(str(e["start_ps"]) for e in host["runtime"]["module"]["executions"])
        theirs = json.loads(
            run(
                [
                    "/usr/bin/python3",
                    TOOL,
                    path,
                    "--json",
                    "--donation",
                    starts,
                    ",".join(str(s) for s in sizes),
                    ",".join(str(s) for s in donation["parameter_sizes"]),
                ]
            )
        )["donation"]
        if theirs["fate"] != verdict:
            failures.append(
                "%s: runtime_peak.py's donation verdict is %r, expected %r"
                % (capture, theirs["fate"], verdict)
            )
        for key in ("fate", "calls", "dead_calls", "reused_calls", "reused_by"):
            if donation[key] != theirs[key]:
                failures.append(
                    "%s: donation %s: oomscope %r, runtime_peak.py %r"
                    % (capture, key, donation[key], theirs[key])
                )
    if checked == 0:
        failures.append("no figure compared; the test would prove nothing")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
