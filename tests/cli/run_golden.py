#!/usr/bin/env python3
"""Runs one golden CLI case: oomscope-cli with the arguments in NAME.args; stdout, stderr and the exit code
compared to NAME.out, NAME.err and the '#exit' line.

usage: run_golden.py CLI CASE.args DATA_DIR ACTUAL_DIR
Each line of CASE.args is one argument; @DATA@ expands to DATA_DIR. An optional first line '#exit N'
gives the expected exit code (default 0). NAME.out is the expected stdout; NAME.err the expected stderr
(a case without a .out or .err file expects nothing on that stream). In both, DATA_DIR is written as @DATA@.
On a mismatch the actual outputs go to ACTUAL_DIR/NAME.actual and NAME.err.actual, a unified diff is printed,
and the exit code is 1.
Set OOMSCOPE_UPDATE_GOLDEN=1 to rewrite NAME.out and NAME.err from the actual run instead (the exit code
in the .args file is never rewritten: change it by hand).
"""
import difflib
import os
import subprocess
import sys


def read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def compare(name: str, what: str, expected: str, actual: str, golden: str, out: str) -> bool:
    if actual == expected:
        return True
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(actual)
    sys.stdout.writelines(
        difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), golden, out)
    )
    print(f"\n{name}: {what} differs from {golden}; actual written to {out}")
    return False


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
    # A fixed, narrow environment: no token from the caller, no terminal, the C locale.
    env = {k: v for k, v in os.environ.items() if not k.startswith("OOMSCOPE_")}
    env["LC_ALL"] = "C.UTF-8"
    proc = subprocess.run(
        [cli] + args,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
        errors="replace",
    )
    actual = proc.stdout.replace(data_dir, "@DATA@")
    actual_err = proc.stderr.replace(data_dir, "@DATA@")
    golden = os.path.splitext(case)[0] + ".out"
    golden_err = os.path.splitext(case)[0] + ".err"
    if os.environ.get("OOMSCOPE_UPDATE_GOLDEN") == "1":
        if actual:
            with open(golden, "w", encoding="utf-8") as f:
                f.write(actual)
        elif os.path.exists(golden):
            os.remove(golden)
        if actual_err:
            with open(golden_err, "w", encoding="utf-8") as f:
                f.write(actual_err)
        elif os.path.exists(golden_err):
            os.remove(golden_err)
        print(f"updated {golden}" + (f" and {golden_err}" if actual_err else ""))
        if proc.returncode != expected_exit:
            print(f"{name}: exit code {proc.returncode}, but the .args file says {expected_exit}")
            return 1
        return 0
    ok = True
    if proc.returncode != expected_exit:
        print(f"{name}: exit code {proc.returncode}, expected {expected_exit}")
        ok = False
    ok &= compare(name, "stdout", read(golden), actual, golden, os.path.join(actual_dir, name + ".actual"))
    ok &= compare(
        name,
        "stderr",
        read(golden_err),
        actual_err,
        golden_err,
        os.path.join(actual_dir, name + ".err.actual"),
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
