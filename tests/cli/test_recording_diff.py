#!/usr/bin/env python3
"""`diff A.oomlive B.oomlive --json -` against an independent reading of both recordings
(tests/data/tools/recording_figures.py decodes the gzip records itself, no oomscope code): per rank the
peaks, the step at the peak, the steps sampled, the OOM events' steps and requests, the steps in common and
where sampled allocated differs most; ranks matched by hello rank. On the two-run pair of tests/data/live,
on the four-rank recording against run A (ranks in A only), and on a run against itself (no change). Then
the refusals: --categories on recordings, a snapshot against a recording.

usage: test_recording_diff.py CLI DATA_DIR
"""
import json
import os
import sys
import tempfile

import cli_checks
from cli_checks import Checks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tools"))
import recording_figures  # noqa: E402


def by_hello(figures):
    return {f["hello_rank"]: f for f in figures.values()}


def expected_side(f):
    steps = sorted(f["by_step"])
    return {
        "peak_allocated_bytes": f["alloc"],
        "peak_reserved_bytes": f["reserved"],
        "samples": f["samples"],
        "steps": len(steps),
        "first_step": steps[0] if steps else None,
        "last_step": steps[-1] if steps else None,
        "step_at_peak_allocated": f["step_at_alloc"],
        "step_at_peak_reserved": f["step_at_reserved"],
        "ooms": [(o["step"], o["requested_bytes"]) for o in f["ooms"]],
    }


def got_side(s):
    keys = [
        "peak_allocated_bytes",
        "peak_reserved_bytes",
        "samples",
        "steps",
        "first_step",
        "last_step",
        "step_at_peak_allocated",
        "step_at_peak_reserved",
    ]
    out = {k: s[k] for k in keys}
    out["ooms"] = [(o["step"], o["requested_bytes"]) for o in s["ooms"]]
    return out


def expected_alignment(fa, fb):
    common = sorted(set(fa["by_step"]) & set(fb["by_step"]))
    if not common:
        return None
    largest = None
    for s in common:
        a, b = fa["by_step"][s], fb["by_step"][s]
        if a is None or b is None:
            continue
        if largest is None or abs(b - a) > abs(largest[2] - largest[1]):
            largest = (s, a, b)
    return (len(common), common[0], common[-1], largest)


def compare(check, cli, a, b, what):
    got = cli_checks.run(cli, "diff", a, b, "--json", "-")
    check(got.returncode == 0, f"{what}: diff exit {got.returncode}: {got.stderr}")
    if got.returncode != 0:
        return None
    doc = json.loads(got.stdout)
    fa, fb = by_hello(recording_figures.read(a)), by_hello(recording_figures.read(b))
    check(
        doc["format"] == "live-recording" and doc["ranks_matched_by"] == "hello rank",
        f"{what}: format {doc['format']}, matched by {doc['ranks_matched_by']}",
    )
    check(
        doc["sites"] is None and any("no stacks and no categories" in s for s in doc["cannot_tell"]),
        f"{what}: sites {doc['sites']}, cannot_tell {doc['cannot_tell']}",
    )
    ranks = {r["rank"]: r for r in doc["ranks"]}
    check(sorted(ranks) == sorted(set(fa) | set(fb)), f"{what}: ranks {sorted(ranks)}")
    for key, r in ranks.items():
        for side, figures in (("a", fa), ("b", fb)):
            if key not in figures:
                check(r[side] is None, f"{what}: rank {key} {side} should be absent")
                continue
            want, have = expected_side(figures[key]), got_side(r[side])
            check(want == have, f"{what}: rank {key} {side}:\n  oomscope {have}\n  script   {want}")
        if key in fa and key in fb:
            d = r["change"]["peak_allocated_bytes"]
            check(d == fb[key]["alloc"] - fa[key]["alloc"], f"{what}: rank {key} change {d}")
            want = expected_alignment(fa[key], fb[key])
            al = r["aligned"]
            have = None
            if al:
                lc = al["largest_allocated_change"]
                have = (
                    al["common_steps"],
                    al["first_step"],
                    al["last_step"],
                    (lc["step"], lc["a_allocated_bytes"], lc["b_allocated_bytes"]) if lc else None,
                )
            check(want == have, f"{what}: rank {key} aligned:\n  oomscope {have}\n  script   {want}")
    return doc


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()
    run_a = os.path.join(data, "live", "two_runs_a_rank1_leaks.oomlive")
    run_b = os.path.join(data, "live", "two_runs_b_fixed.oomlive")
    four = os.path.join(data, "live", "four_ranks_rank3_leaks.oomlive")

    doc = compare(check, cli, run_a, run_b, "A vs B")
    if doc:
        check(
            doc["verdict_a"]["case"] == "oom" and doc["verdict_a"]["rank"] == 1,
            f"A's verdict {doc['verdict_a']}",
        )
        check(doc["verdict_b"]["case"] == "closest-to-capacity", f"B's verdict {doc['verdict_b']}")
        # Both of B's ranks have 16 GiB: the closest is the larger reserved peak, named by its hello rank as
        # the table names it (B's recording index 0 is hello rank 1).
        fb = by_hello(recording_figures.read(run_b))
        want = max(fb, key=lambda h: fb[h]["reserved"])
        sentence = doc["verdict_b"]["sentences"][0]
        check(
            doc["verdict_b"]["rank"] == want and f"rank {want} came closest" in sentence,
            f"B's verdict names rank {doc['verdict_b']['rank']} ({sentence}), expected {want}",
        )
        # Recording index 0 of B is hello rank 1: matched by hello rank, its figures are rank 1's.
        r1 = next(r for r in doc["ranks"] if r["rank"] == 1)
        check(r1["b"]["recording_rank"] == 0 and r1["a"]["recording_rank"] == 1, f"rank 1 indices {r1}")
    doc = compare(check, cli, four, run_a, "four ranks vs A")
    if doc:
        only_a = sorted(r["rank"] for r in doc["ranks"] if r["in"] == "a")
        check(only_a == [2, 3], f"ranks in A only: {only_a}")
    doc = compare(check, cli, run_b, run_b, "B vs B")
    if doc:
        for r in doc["ranks"]:
            check(
                r["change"]["peak_allocated_bytes"] == 0 and r["change"]["peak_reserved_bytes"] == 0,
                f"B against itself changed: {r['change']}",
            )
            lc = r["aligned"]["largest_allocated_change"]
            check(lc["a_allocated_bytes"] == lc["b_allocated_bytes"], f"B against itself: {lc}")
    # Refusals: --categories (nothing to categorise), a recording against a snapshot (the error names B).
    with tempfile.TemporaryDirectory() as tmp:
        rules = os.path.join(tmp, "team.rules")
        with open(rules, "w") as f:
            f.write("site train\\.py -> mine\n")
        got = cli_checks.run(cli, "diff", run_a, run_b, "--categories", rules)
        check(
            got.returncode == 2 and "no allocations to categorise" in got.stderr,
            f"--categories on recordings: exit {got.returncode}, {got.stderr[:300]}",
        )
    snap = os.path.join(data, "torch_snapshot_cs336_small_peak.pickle")
    got = cli_checks.run(cli, "diff", snap, run_a)
    check(
        got.returncode == 1
        and f"{run_a}: is a live recording and A ({snap}) is a PyTorch snapshot" in got.stderr,
        f"snapshot against a recording: exit {got.returncode}, {got.stderr[:300]}",
    )
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
