#!/usr/bin/python3
"""Issue 8's cases on hand-built captures (tests/data/hand, written by
tests/data/tools/make_hand_captures.py): each goes through the real reader and report, and the findings
that define the case must be there.

The committed captures must be what the script writes (so the goldens and these checks describe the
script's cases). The whole text of each report is in tests/cli/golden/report_hand_*.out.
Usage: test_hand_captures.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools")

# (capture, sentences the text report must contain, sentences it must not contain)
CASES = [
    (
        "hand_same_name_interleaved",
        [
            "jit_add(12)                              peak 192 MiB",
            "executions 3 (by program id)",
            "jit_add(11)                              peak 12.0 MiB",
            "executions of jit_add(12): 3 on GPU_0_bfc [measured]; matched by program id",
            "outputs of jit_add(11) execution 3",
        ],
        ["by name"],
    ),
    (
        "hand_forward_transient",
        [
            "at loop_reduce_fusion, in the forward",
            "forward-transient 92.3 % (288 MiB",
            "the peak (312 MiB, at loop_reduce_fusion) is in the forward; "
            "the backward has its own peak of 216 MiB "
            "at fusion.g2",
            "split-K GEMM: gemm_fusion_dot.3 writes f32 partial sums f32[2,25165824] (192 MiB)",
            "then needs 216 MiB (the other phase's peak stays)",
        ],
        ["jax.checkpoint", "forward-kept 9"],
    ),
    (
        "hand_backward_peak",
        [
            "at fusion.g2, in the backward",
            "the peak (456 MiB, at fusion.g2) is in the backward; the forward has its own peak of 120 MiB",
            "backward 84.2 % (384 MiB",
        ],
        ["split-K"],
    ),
    (
        "hand_leak",
        [
            "growth of in use at start: 64.0 MiB -> 192 MiB [measured], +32.0 MiB per execution",
            "every step grew",
            "32.0 MiB  1 allocation    outputs of jit_step execution 4",
            "a leak across steps); 4 earlier executions' outputs are still live",
            '"$<unknown> append" is list.append',
            "at this rate 376 more executions start before the 11.8 GiB still free run out",
        ],
        [],
    ),
    (
        "hand_oom_retry",
        [
            "analysed module: jit_step(7), last execution never started",
            "AllocatorRetry: 2 waits, longest 0.299000 s at 0.321000 s, total 0.499000 s",
            "#3    at 0.120000 s         in use at start 8.00 GiB   kernel launched: NO (no XLA module span) "
            "AllocatorRetry 0.499000 s",
            "AllocatorRetry waited 2 times, longest 0.30 s, 1 execution(s) never started",
            "the pool is already exhausted: the last execution did not start",
            "2.00 GiB  1 allocation    outputs of jit_step execution 2",
        ],
        ["other live arrays take the room", "keep PjRtStreamExecutorClient"],
    ),
    (
        "hand_host_offload",
        [
            "memory space 5 (host offload): parameters 512 MiB (2 allocations of f32[64,1024,1024], "
            "all aliased with "
            "outputs), outputs 0 B, temp 0 B [read]; not in the device figures",
            "2 copy-start buffer(s) of f32[64,1024,1024] (512 MiB in all) are live at the peak",
            "[read] host offload (memory space 5): 512 MiB kept in host memory, "
            "2 parameter(s) of 512 MiB aliased",
        ],
        ["parameters 0 B (", "no allocator event"],
    ),
    (
        "hand_eager_chunks",
        [
            "128 MiB    -> 240 MiB    slack 112 MiB",
            "an eager (op-by-op) program: 5 modules ran (5 executions, at most 1 of one "
            "module) and none has a "
            "backward pass; jit_matmul is one of its ops",
            # The runtime peak (358 MiB) reconciled: in use at jit_matmul's start + its own chunks as served.
            "the runtime peak: 358 MiB on GPU_0_bfc at 0.140200 s [read], inside jit_matmul execution 1",
            "= in use at its start 114 MiB [read] + its own allocations still live 244 MiB "
            "in 2 allocations as "
            "served (requested 132 MiB) [measured]",
            "allocations rounded up by 1 MiB or more on GPU_0_bfc: 1 of 14, 112 MiB more "
            "than requested in all",
        ],
        ["the step alone has room"],
    ),
    # Issue 30: the largest op has 128 of its 192 MiB as temp; the program is still eager (decided for the
    # program, not the analysed module).
    (
        "hand_eager_big_temp",
        [
            "an eager (op-by-op) program: 5 modules ran (5 executions, at most 1 of one module)",
            "this op alone has room",
        ],
        ["the step alone has room", "optimizer"],
    ),
    # Issue 30: donation proposed because the runtime shows the old w freed right after each call.
    (
        "hand_donation_dead",
        [
            "freed right after each of the last 3 calls, before anything else ran (measured)",
            "fix: donate_argnums on the arguments whose outputs replace them",
        ],
        ["if the caller does not use these arrays", "an eager"],
    ),
    (
        "hand_two_devices",
        [
            "jit_a(21)                                peak 12.0 MiB",
            "executions 3 (by program id)",
            "jit_c(23)                                peak 512 KiB    temp 0 B        "
            "params 256 KiB    outputs 256 KiB "
            "   executions 1 (by name); 1 with launches of several programs (see the runtime notes)",
            "jit_c: 1 execution(s) launched kernels in a window where launches name several programs "
            "(program ids "
            "22, 23) and its own device is unknown",
            "executions of jit_b(22): 4 on GPU_1_bfc [measured]; matched by program id",
        ],
        [],
    ),
]


def main():
    cli, data = sys.argv[1:3]
    hand = os.path.join(data, "hand")
    failures = []
    check = subprocess.run(
        ["/usr/bin/python3", os.path.join(TOOLS, "make_hand_captures.py"), "--check", hand],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        failures.append(
            "the committed captures are not what make_hand_captures.py writes:\n"
            + check.stdout
            + check.stderr
        )
    for name, present, absent in CASES:
        path = os.path.join(hand, name + ".xplane.pb")
        text = subprocess.run([cli, "report", path], capture_output=True, text=True)
        if text.returncode != 0:
            failures.append("%s: exit %d: %s" % (name, text.returncode, text.stderr))
            continue
        for s in present:
            if s not in text.stdout:
                failures.append("%s: missing %r" % (name, s))
        for s in absent:
            if s in text.stdout:
                failures.append("%s: should not say %r" % (name, s))
    # The eager program leads with the runtime: its first finding is the eager one, and the JSON lists the
    # requested-vs-chunk rows.
    out = subprocess.run(
        [cli, "report", os.path.join(hand, "hand_eager_chunks.xplane.pb"), "--json", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    host = json.loads(out)["hosts"][0]
    if {"requested_bytes": 128 << 20, "chunk_bytes": 240 << 20, "slack_bytes": 112 << 20} not in [
        {k: c[k] for k in ("requested_bytes", "chunk_bytes", "slack_bytes")}
        for c in host["runtime_peak"]["largest_chunks"]
    ]:
        failures.append(
            "hand_eager_chunks: no 128 MiB -> 240 MiB chunk in the JSON: %r" % host["runtime_peak"]
        )
    rules = [d["rule"] for d in host["diagnosis"]]
    if not rules or rules[0] != "eager":
        failures.append("hand_eager_chunks: the diagnosis does not lead with the eager finding: %r" % rules)
    text = subprocess.run(
        [cli, "report", os.path.join(hand, "hand_eager_chunks.xplane.pb")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    diagnosis = text[text.index("DIAGNOSIS") :]
    first = [line for line in diagnosis.splitlines() if line.startswith("  [")][0]
    if "eager (op-by-op)" not in first:
        failures.append("hand_eager_chunks: first diagnosis line is %r" % first)
    # The verdict is the program's: analysing a module that never ran does not flip it (issue 30).
    other = subprocess.run(
        [cli, "report", os.path.join(hand, "hand_eager_chunks.xplane.pb"), "--module", "jit_broadcast_in_dim"]
        + ["--json", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    host = json.loads(other)["hosts"][0]
    if not host["eager"] or host["plan"]["module"] != "jit_broadcast_in_dim":
        failures.append(
            "hand_eager_chunks --module jit_broadcast_in_dim: eager %r, module %r"
            % (host["eager"], host["plan"]["module"])
        )
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
