#!/usr/bin/env python3
"""oomscope-cli simulate: exit codes, messages on stderr and the trace file (what golden stdout cannot show).

usage: test_simulate.py CLI DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

CLI, DATA = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    return subprocess.run([CLI, "simulate", *args], capture_output=True, text=True, timeout=300)


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")


# A bug under oom-only crashes loudly: exit 4, the scene named on stderr.
p = run("--scenes", "16", "--seed", "3", "--bug-scene", "5", "--catch", "oom-only")
check("crash exit", p.returncode == 4, p.returncode)
check("crash names scene", "scene 5 raised a shape mismatch" in p.stderr, p.stderr)
# The same bug under catch-everything: silent, exit 0, nothing on stderr.
p = run("--scenes", "16", "--seed", "3", "--bug-scene", "5", "--bug-kind", "nan")
check("dissolve exit", p.returncode == 0, p.returncode)
check("dissolve silent", p.stderr == "", p.stderr)

# Byte suffixes are equivalent.
a = json.loads(run("--scenes", "8", "--budget", "2.5GiB", "--json").stdout)
b = json.loads(run("--scenes", "8", "--budget", str(int(2.5 * 2**30)), "--json").stdout)
check("byte suffix", a == b and a["config"]["memory"]["budget"] == 2684354560)

# Bad arguments: exit 2 with the reason.
for args, needle in [(["--budget", "lots"], "--budget expects a byte size"),
                     (["--catch", "some"], "--catch expects oom-only or everything"),
                     (["--batch", "0"], "--batch must be >= 1"),
                     (["--bug-scene", "99"], "bug scene 99 is not a scene"),
                     (["--bug-kind", "nan"], "--bug-kind needs --bug-scene"),
                     (["--frobnicate", "1"], "unknown option '--frobnicate'"),
                     (["--scenes"], "--scenes needs a value")]:
    p = run(*args)
    check(f"usage {args}", p.returncode == 2 and needle in p.stderr, f"{p.returncode} {p.stderr[:200]}")

# Missing and bad sizes files: exit 1 naming the file (and line).
p = run("--dist", "/nonexistent/sizes.csv")
check("missing sizes", p.returncode == 1 and "/nonexistent/sizes.csv: no such file" in p.stderr, p.stderr)
p = run("--dist", os.path.join(DATA, "sim", "bad_sizes.txt"))
check("bad sizes", p.returncode == 1 and "bad_sizes.txt: line 4:" in p.stderr, p.stderr)

# The trace: header, one line per event, totals matching --json; identical for the same seed.
with tempfile.TemporaryDirectory() as tmp:
    t1, t2 = os.path.join(tmp, "a.jsonl"), os.path.join(tmp, "b.jsonl")
    p = run("--scenes", "12", "--seed", "9", "--bug-scene", "2", "--trace", t1, "--json")
    run("--scenes", "12", "--seed", "9", "--bug-scene", "2", "--trace", t2)
    lines = [json.loads(l) for l in open(t1, encoding="utf-8")]
    check("trace header", lines[0]["type"] == "header" and lines[0]["format"] == "oomscope-split-trace")
    events = [l for l in lines if l["type"] == "event"]
    check("trace events", [e["id"] for e in events] == list(range(len(events))))
    totals = lines[-1]
    check("trace totals", totals["type"] == "totals" and totals["attempts"] == json.loads(p.stdout)["totals"]["attempts"])
    check("trace attempts", totals["attempts"] == sum(e["outcome"] != "dropped" for e in events))
    check("deterministic", open(t1, "rb").read() == open(t2, "rb").read())
    p = run("--scenes", "4", "--trace", os.path.join(tmp, "no", "dir", "t.jsonl"))
    check("unwritable trace", p.returncode == 1 and "cannot open the trace file" in p.stderr, p.stderr)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
