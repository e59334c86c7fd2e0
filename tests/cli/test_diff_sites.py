#!/usr/bin/env python3
"""`diff --json`'s site table (`sites`: bytes live at each run's peak by user code line and category) against
an independent reading of both pickles (tests/data/tools/snapshot_peak_sites.py, Python's own Unpickler
and the documented rules, no oomscope code), on the cs336 fp32/bf16 pair, on the hand-built pair without
and with activation checkpointing (where the peak moved, read from its annotations) and on a run against
itself;
then `--categories` on `diff` and `report`: a user rule's name in the tables, and bad rule files failing
with the file and the line.

usage: test_diff_sites.py CLI DATA_DIR
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile

import cli_checks
from cli_checks import Checks

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "data", "tools", "snapshot_peak_sites.py")


def independent(a, b):
    out = subprocess.run(
        [sys.executable, SCRIPT, a, b], capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(out.stdout)


def check_sites(check, cli, a, b, min_rows):
    """diff --json A B's sites, peaks and categories against the independent reading; returns both."""
    want = independent(a, b)
    got = cli_checks.run(cli, "diff", a, b, "--top", "1000", "--json", "-")
    check(got.returncode == 0, f"diff exit {got.returncode}: {got.stderr}")
    doc = json.loads(got.stdout)
    rows = {(r["site"], r["category"]): (r["a"], r["b"]) for r in doc["sites"]}
    expected = {(r["site"], r["category"]): (r["a"], r["b"]) for r in want["diff"]}
    check(len(expected) >= min_rows, f"the independent reading found only {len(expected)} changed rows")
    check(
        rows == expected,
        f"sites of {a} {b} differ:\n  only oomscope {rows.keys() - expected.keys()}\n"
        f"  only script {expected.keys() - rows.keys()}\n"
        f"  bytes {[(k, rows[k], expected[k]) for k in rows.keys() & expected.keys() if rows[k] != expected[k]]}",  # noqa: E501 (one message)
    )
    check(doc["site_rows_changed"] == len(expected), f"site_rows_changed {doc['site_rows_changed']}")
    for r in doc["sites"]:
        check(r["delta"] == r["b"] - r["a"], f"delta of {r}")
        check(r["rule"] != "", f"no rule for {r}")
    deltas = [abs(r["delta"]) for r in doc["sites"]]
    check(deltas == sorted(deltas, reverse=True), "sites not largest change first")
    peak = {t["name"]: t for t in doc["totals"]}["active-memory peak"]
    check(
        peak["a"] == want["runs"][0]["peak_bytes"] and peak["b"] == want["runs"][1]["peak_bytes"],
        f"peaks {peak} vs {[r['peak_bytes'] for r in want['runs']]}",
    )
    for run, p in zip(want["runs"], doc["peaks"]):
        check(p["trace_entry"] == run["peak_index"], f"peak entry {p['trace_entry']} vs {run['peak_index']}")
    # Σ of the category rows per run is the peak (every live element in exactly one category).
    cats = doc["categories_at_peak"]
    check(
        sum(c["a"] for c in cats) == peak["a"] and sum(c["b"] for c in cats) == peak["b"],
        "categories_at_peak do not add up to the peaks",
    )
    by_category = [{}, {}]
    for k, run in enumerate(want["runs"]):
        for site in run["sites"]:
            by_category[k][site["category"]] = by_category[k].get(site["category"], 0) + site["bytes"]
    for c in cats:
        check(
            (c["a"], c["b"]) == (by_category[0].get(c["name"], 0), by_category[1].get(c["name"], 0)),
            f"category {c} vs the script's {by_category}",
        )
    return doc, want


def window_at_peak(path, entry):
    """The innermost external_annotations range (latest START) holding trace entry `entry`'s time."""
    with open(path, "rb") as f:
        snap = pickle.load(f)  # a hand-built file of plain dicts and lists
    t = snap["device_traces"][0][entry]["time_us"]
    starts, best = {}, None
    for a in snap["external_annotations"]:
        if a["stage"] == "START":
            starts[a["name"]] = a["time_us"]
        elif a["name"] in starts and starts[a["name"]] <= t <= a["time_us"]:
            if best is None or starts[a["name"]] > best[1]:
                best = (a["name"], starts[a["name"]])
    return best[0] if best else None


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()
    fp32 = os.path.join(data, "torch_snapshot_cs336_fp32_ctx128.pickle")
    bf16 = os.path.join(data, "torch_snapshot_cs336_bf16_ctx128.pickle")
    want = check_sites(check, cli, fp32, bf16, 6)[1]

    # The hand-built checkpointing pair: the saving came from activations, and the peak moved from the
    # end of forward into backward, each place read from the file's own annotations.
    off = os.path.join(data, "hand_snapshots", "torch_snapshot_ckpt_off.pickle")
    on = os.path.join(data, "hand_snapshots", "torch_snapshot_ckpt_on.pickle")
    doc, ck = check_sites(check, cli, off, on, 3)
    windows = [p["window"] for p in doc["peaks"]]
    expected_windows = [window_at_peak(f, r["peak_index"]) for f, r in zip((off, on), ck["runs"])]
    check(windows == expected_windows == ["## forward ##", "## backward ##"], f"peak windows {windows}")
    cats = {c["name"]: c for c in doc["categories_at_peak"]}
    check(cats["activations"]["b"] < cats["activations"]["a"], f"activations {cats['activations']}")
    check(
        cats["activations"]["a"] - cats["activations"]["b"] == max(c["a"] - c["b"] for c in cats.values()),
        "the largest saving is not the activations'",
    )
    text = cli_checks.run(cli, "diff", off, on)
    check(
        "the peak moved: A's falls inside ## forward ##, B's inside ## backward ## [derived]" in text.stdout,
        f"no peak-moved line: {text.stdout}",
    )
    same = json.loads(cli_checks.run(cli, "diff", on, on, "--json", "-").stdout)
    check(same["peaks"][0]["window"] == same["peaks"][1]["window"], "one run, two windows")
    check("the peak moved" not in cli_checks.run(cli, "diff", on, on).stdout, "a run against itself moved")

    # --top cuts the table, not the count.
    top = json.loads(cli_checks.run(cli, "diff", fp32, bf16, "--top", "3", "--json", "-").stdout)
    check(len(top["sites"]) == 3 and top["site_rows_changed"] == len(want["diff"]), "--top 3")
    same = json.loads(cli_checks.run(cli, "diff", bf16, bf16, "--json", "-").stdout)
    check(same["sites"] == [] and same["site_rows_changed"] == 0, "a run against itself changed")

    with tempfile.TemporaryDirectory() as tmp:
        rules = os.path.join(tmp, "team.rules")
        with open(rules, "w") as f:
            f.write("# the SwiGLU block's three projections as one\n")
            f.write("site swiglu\\.py:3[234] in forward -> swiglu\n")
        d = cli_checks.run(cli, "diff", fp32, bf16, "--categories", rules, "--top", "1000", "--json", "-")
        check(d.returncode == 0, f"diff --categories exit {d.returncode}: {d.stderr}")
        doc = json.loads(d.stdout)
        check(doc["category_rules"] == rules, f"category_rules {doc.get('category_rules')}")
        swiglu = {c["name"]: c for c in doc["categories_at_peak"]}.get("swiglu")
        want_b = sum(
            s["bytes"]
            for s in want["runs"][1]["sites"]
            if "swiglu.py:3" in s["site"] and s["site"].split(":")[1].split(" ")[0] in ("32", "33", "34")
        )
        check(swiglu is not None and swiglu["b"] == want_b, f"swiglu row {swiglu}, want b={want_b}")
        for r in doc["sites"]:
            if "swiglu.py:3" in r["site"] and " in forward" in r["site"]:
                check(
                    r["category"] == "swiglu" and "team.rules:2" in r["rule"], f"user rule not applied: {r}"
                )
        rep = cli_checks.run(cli, "report", bf16, "--categories", rules)
        check(rep.returncode == 0 and "swiglu" in rep.stdout, f"report --categories: {rep.returncode}")
        check("team.rules:2" in rep.stdout, "report does not say which rule gave the category")

        bad = os.path.join(tmp, "bad.rules")
        with open(bad, "w") as f:
            f.write("# fine\nfile ok -> mine\nfile (unclosed -> broken\n")
        for args in (["diff", fp32, bf16], ["report", bf16]):
            p = cli_checks.run(cli, *args, "--categories", bad)
            check(p.returncode == 1, f"{args[0]} with a bad rules file: exit {p.returncode}")
            check(
                f"{bad}: line 3: the regular expression /(unclosed/ does not compile" in p.stderr,
                f"{args[0]}: {p.stderr!r}",
            )
        p = cli_checks.run(cli, "diff", fp32, bf16, "--categories", os.path.join(tmp, "missing.rules"))
        check(
            p.returncode == 1 and "missing.rules" in p.stderr,
            f"missing rules file: {p.returncode} {p.stderr!r}",
        )
        log = os.path.join(tmp, "run.log")
        with open(log, "w") as f:
            f.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
        p = cli_checks.run(cli, "report", log, "--categories", rules)
        check(
            p.returncode == 2 and "--categories applies to PyTorch allocator snapshots" in p.stderr,
            f"--categories on a log: {p.returncode} {p.stderr!r}",
        )
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
