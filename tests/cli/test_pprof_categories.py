#!/usr/bin/env python3
"""`diff A.prof B.prof --categories FILE --json -`: the JAX profile's live bytes by category against an
independent reading (tests/data/tools/pprof_categories.py: its own protobuf reader and Python's `re`, no
oomscope code), on the real microjax profile, whole and with one rule taken out (so bytes move between
categories); the Kineto diff's one line for rules it does not apply.

usage: test_pprof_categories.py CLI DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import cli_checks
from cli_checks import Checks

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "data", "tools", "pprof_categories.py")


def independent(rules, *profiles):
    out = subprocess.run(
        [sys.executable, SCRIPT, rules, *profiles], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout)


def compare(check, cli, rules, prof, label):
    want = independent(rules, prof)[0]
    p = cli_checks.run(cli, "diff", prof, prof, "--categories", rules, "--json", "-")
    check(p.returncode == 0, f"{label}: diff exit {p.returncode}: {p.stderr}")
    doc = json.loads(p.stdout)
    check(doc["category_rules"] == rules, f"{label}: category_rules {doc.get('category_rules')}")
    got = {r["category"]: [r["a"], r["a_samples"]] for r in doc["categories"]["rows"]}
    check(got == want, f"{label}: categories {got} != independent {want}")
    check(len(want) >= 3, f"{label}: the independent reading found only {want}")
    total = {t["name"]: t for t in doc["totals"]}["live bytes [read]"]["a"]
    check(sum(v[0] for v in got.values()) == total, f"{label}: the categories do not add up to {total}")
    for r in doc["categories"]["rows"]:
        check(r["a"] == r["b"] and r["delta"] == 0, f"{label}: a profile against itself changed: {r}")
        check(sum(x["a_samples"] for x in r["reasons"]) == r["a_samples"], f"{label}: reasons of {r}")
    return doc


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()
    prof = os.path.join(data, "jax_device_memory_profile_cuda_microjax.prof")
    rules = os.path.join(data, "categories", "microjax.rules")
    doc = compare(check, cli, rules, prof, "microjax.rules")
    notes = doc["categories"]["notes"]
    check(len(notes) == 1 and "annotation match nothing" in notes[0], f"notes {notes}")

    with tempfile.TemporaryDirectory() as tmp:
        fewer = os.path.join(tmp, "fewer.rules")
        with open(rules, encoding="utf-8") as f:
            kept = [line for line in f if "inverse_ray" not in line]
        with open(fewer, "w", encoding="utf-8") as f:
            f.writelines(kept)
        compare(check, cli, fewer, prof, "without the inverse_ray rule")

    without = json.loads(cli_checks.run(cli, "diff", prof, prof, "--json", "-").stdout)
    check("categories" not in without and "category_rules" not in without, "keys added without --categories")

    k0 = os.path.join(data, "kineto_ranks", "no_oom", "rank0.pt.trace.json.gz")
    k1 = os.path.join(data, "kineto_ranks", "no_oom", "rank1.pt.trace.json.gz")
    p = cli_checks.run(cli, "diff", k0, k1, "--categories", rules)
    lines = [line for line in p.stdout.splitlines() if line.startswith("--categories ")]
    check(
        p.returncode == 0 and len(lines) == 1 and "not applied" in lines[0], f"Kineto: {p.returncode} {lines}"
    )
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
