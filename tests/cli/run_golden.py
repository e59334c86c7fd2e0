#!/usr/bin/env python3
"""Runs one golden CLI case: oomscope-cli with the arguments in NAME.args, stdout compared to NAME.out.

usage: run_golden.py CLI CASE.args DATA_DIR ACTUAL_DIR
Each line of CASE.args is one argument; @DATA@ expands to DATA_DIR. An optional first line
'#exit N' gives the expected exit code (default 0). On a mismatch the actual output goes to
ACTUAL_DIR/NAME.actual, a unified diff is printed, and the exit code is 1.
Set OOMSCOPE_UPDATE_GOLDEN=1 to rewrite NAME.out from the actual output instead.
"""
import difflib
import os
import subprocess
import sys


def main() -> int:
    cli, case, data_dir, actual_dir = sys.argv[1:5]
    name = os.path.splitext(os.path.basename(case))[0]
    expected_exit = 0
    args = []
    with open(case, encoding="utf-8") as f:
        for raw in f.read().splitlines():
            if raw.startswith("#exit "):
                expected_exit = int(raw.split()[1])
                continue
            if not raw.strip() or raw.startswith("#"):
                continue
            args.append(raw.replace("@DATA@", data_dir))
    proc = subprocess.run([cli] + args, capture_output=True, text=True, timeout=300)
    actual = proc.stdout.replace(data_dir, "@DATA@")
    golden = os.path.splitext(case)[0] + ".out"
    if os.environ.get("OOMSCOPE_UPDATE_GOLDEN") == "1":
        with open(golden, "w", encoding="utf-8") as f:
            f.write(actual)
        print(f"updated {golden}")
        return 0
    with open(golden, encoding="utf-8") as f:
        expected = f.read()
    ok = True
    if proc.returncode != expected_exit:
        print(f"{name}: exit code {proc.returncode}, expected {expected_exit}\nstderr:\n{proc.stderr}")
        ok = False
    if actual != expected:
        os.makedirs(actual_dir, exist_ok=True)
        out = os.path.join(actual_dir, name + ".actual")
        with open(out, "w", encoding="utf-8") as f:
            f.write(actual)
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), golden, out))
        print(f"\n{name}: output differs from {golden}; actual written to {out}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
