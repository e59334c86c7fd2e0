#!/usr/bin/env python3
"""`diff --json`'s site table (`sites`: bytes live at each run's peak by user code line and category) against
an independent reading of both pickles (tests/data/tools/snapshot_peak_sites.py, Python's own Unpickler
and the documented rules, no oomscope code), on the cs336 fp32/bf16 pair and on each run against itself;
then `--categories` on `diff` and `report`: a user rule's name in the tables, and bad rule files failing
with the file and the line.

usage: test_diff_sites.py CLI DATA_DIR
"""
import json
import os
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


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()
    fp32 = os.path.join(data, "torch_snapshot_cs336_fp32_ctx128.pickle")
    bf16 = os.path.join(data, "torch_snapshot_cs336_bf16_ctx128.pickle")

    want = independent(fp32, bf16)
    got = cli_checks.run(cli, "diff", fp32, bf16, "--top", "1000", "--json", "-")
    check(got.returncode == 0, f"diff exit {got.returncode}: {got.stderr}")
    doc = json.loads(got.stdout)
    rows = {(r["site"], r["category"]): (r["a"], r["b"]) for r in doc["sites"]}
    expected = {(r["site"], r["category"]): (r["a"], r["b"]) for r in want["diff"]}
    check(len(expected) > 5, f"the independent reading found only {len(expected)} changed rows")
    check(
        rows == expected,
        f"sites differ:\n  only oomscope {rows.keys() - expected.keys()}\n"
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
    # Σ of the category rows per run is the peak (every live element in exactly one category).
    cats = doc["categories_at_peak"]
    check(
        sum(c["a"] for c in cats) == peak["a"] and sum(c["b"] for c in cats) == peak["b"],
        "categories_at_peak do not add up to the peaks",
    )
    # --top cuts the table, not the count.
    top = json.loads(cli_checks.run(cli, "diff", fp32, bf16, "--top", "3", "--json", "-").stdout)
    check(len(top["sites"]) == 3 and top["site_rows_changed"] == len(expected), "--top 3")
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
