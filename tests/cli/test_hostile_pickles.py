#!/usr/bin/env python3
"""Hostile pickles (tests/data/tools/make_hostile_pickles.py) through `oomscope-cli info`: every one must
exit 1 with an error naming the file and the expected problem, never crash, and never run code (a file
named 'pwned' must not appear, and 'pwned' must not be printed).

usage: test_hostile_pickles.py CLI DATA_DIR
"""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    cli, data = sys.argv[1:3]
    tools = os.path.join(data, "tools", "make_hostile_pickles.py")
    real = os.path.join(data, "torch_snapshot_cs336_small_peak.pickle")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, tools, tmp, real], check=True, capture_output=True)
        with open(os.path.join(tmp, "expected.txt"), encoding="utf-8") as f:
            cases = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
        for name, expect in cases:
            path = os.path.join(tmp, name + ".pickle")
            proc = subprocess.run([cli, "info", path], capture_output=True, text=True, timeout=60, cwd=tmp)
            ok = (
                proc.returncode == 1
                and expect in proc.stderr
                and path in proc.stderr
                and "pwned" not in proc.stdout
            )
            if not ok:
                failures += 1
                print(
                    f"FAIL {name}: exit {proc.returncode}, expected '{expect}'\n"
                    f"  stderr: {proc.stderr.strip()}"
                )
        if os.path.exists(os.path.join(tmp, "pwned")):
            failures += 1
            print("FAIL: code ran")
    print(f"{len(cases) - failures}/{len(cases)} hostile pickles refused as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
