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
for args, needle in [
    (["--budget", "lots"], "--budget: 'lots' is not a size"),
    (["--catch", "some"], "--catch expects oom-only, everything or runtime-error"),
    (["--budget", "1e400"], "--budget: '1e400' is too large"),
    (["--budget", "9" * 400], "is too large"),
    (["--seed", "18446744073709551616"], "--seed must be in 0..18446744073709551615"),
    (["--scenes", "99999999999999999999"], "--scenes is out of range"),
    (["--on-floor", "maybe"], "--on-floor expects drop, keep or raise"),
    (["--empty-cache-relief", "150"], "--empty-cache-relief expects a percentage"),
    (["--batch", "0"], "--batch must be >= 1"),
    (["--bug-scene", "99"], "bug scene 99 is not a scene"),
    (["--bug-kind", "nan"], "--bug-kind needs --bug-scene"),
    (["--frobnicate", "1"], "not expected: 1 --frobnicate"),
    (["--scenes"], "--scenes: 1 required N missing"),
]:
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
    lines = [json.loads(text) for text in open(t1, encoding="utf-8")]
    check("trace header", lines[0]["type"] == "header" and lines[0]["format"] == "oomscope-split-trace")
    events = [e for e in lines if e["type"] == "event"]
    check("trace events", [e["id"] for e in events] == list(range(len(events))))
    totals = lines[-1]
    check(
        "trace totals",
        totals["type"] == "totals" and totals["attempts"] == json.loads(p.stdout)["totals"]["attempts"],
    )
    check("trace attempts", totals["attempts"] == sum(e["outcome"] != "dropped" for e in events))
    check("deterministic", open(t1, "rb").read() == open(t2, "rb").read())
    p = run("--scenes", "4", "--trace", os.path.join(tmp, "no", "dir", "t.jsonl"))
    check("unwritable trace", p.returncode == 1 and "cannot open the trace file" in p.stderr, p.stderr)

# Seeds take the full 64-bit range and are written back exactly.
p = run("--scenes", "4", "--seed", "18446744073709551615", "--json")
check(
    "max seed", p.returncode == 0 and json.loads(p.stdout)["config"]["seed"] == 18446744073709551615, p.stderr
)

# --bug-kind none with a bug scene: a warning, no bug.
p = run("--scenes", "8", "--bug-kind", "none", "--bug-scene", "3")
check("bug-kind none warns", p.returncode == 0 and "--bug-kind none plants no bug" in p.stderr, p.stderr)

# A budget that fragmentation leaves too small for the fixed bytes, with empty_cache() giving nothing
# back: every point dropped. A warning, and exit 6 under --catch oom-only.
args = ["--scenes", "8", "--budget", "1.7GiB", "--frag-penalty", "512MiB", "--empty-cache-relief", "0"]
p = run(*args, "--preset", "original")
check("drops everything warns", p.returncode == 0 and "no attempt succeeded" in p.stderr, p.stderr)
p = run(*args, "--catch", "oom-only")
check(
    "drops everything oom-only",
    p.returncode == 6 and "no attempt succeeded" in p.stderr,
    (p.returncode, p.stderr),
)
p = run(*args[:-2], "--catch", "oom-only")  # default relief: the retries recover
check(
    "relief recovers", p.returncode == 0 and "no attempt succeeded" not in p.stderr, (p.returncode, p.stderr)
)

# runtime-error swallows a shape mismatch, not a NaN check; --on-floor raise stops at the floor (exit 4).
p = run("--scenes", "16", "--seed", "3", "--bug-scene", "5", "--catch", "runtime-error")
check("runtime-error swallows shape", p.returncode == 0, (p.returncode, p.stderr))
p = run("--scenes", "16", "--seed", "3", "--bug-scene", "5", "--bug-kind", "nan", "--catch", "runtime-error")
check(
    "runtime-error crashes on nan",
    p.returncode == 4 and "--catch runtime-error" in p.stderr,
    (p.returncode, p.stderr),
)
p = run("--scenes", "16", "--seed", "3", "--bug-scene", "5", "--catch", "everything", "--on-floor", "raise")
check("on-floor raise", p.returncode == 4 and "reached the floor" in p.stderr, (p.returncode, p.stderr))

# 1e5 in a sizes file is a number; --model reads a calibrated model file and names file and key on error.
with tempfile.TemporaryDirectory() as tmp:
    sizes = os.path.join(tmp, "sizes.txt")
    open(sizes, "w").write("1e5\n2.5e5\n120000\n")
    p = run("--sizes", sizes, "--json")
    check(
        "1e5 sizes",
        p.returncode == 0 and json.loads(p.stdout)["config"]["scenes"]["sizes"] == [100000, 250000, 120000],
        p.stderr,
    )
    model = os.path.join(tmp, "model.json")
    json.dump(
        {
            "format": "oomscope-sim-model",
            "version": 1,
            "fixed_bytes": 1 << 20,
            "bytes_per_point": 2048.4,
            "time_fixed_s": 0.001,
            "time_per_point_s": 1e-6,
            "device": "cpu",
        },
        open(model, "w"),
    )
    p = run("--model", model, "--sizes", sizes, "--json")
    cfg = json.loads(p.stdout)["config"] if p.returncode == 0 else {}
    check(
        "model applied",
        cfg.get("memory", {}).get("bytes_per_point") == 2048
        and cfg["memory"]["fixed_bytes"] == 1 << 20
        and cfg["time"]["fixed_ns_per_attempt"] == 1000000,
        p.stderr,
    )
    json.dump(
        {
            "format": "oomscope-sim-model",
            "version": 1,
            "fixed_bytes": 1,
            "bytes_per_point": "2k",
            "time_fixed_s": 0.001,
            "time_per_point_s": 1e-6,
        },
        open(model, "w"),
    )
    p = run("--model", model)
    check(
        "model bad key",
        p.returncode == 1 and "model.json: key 'bytes_per_point' must be a number" in p.stderr,
        p.stderr,
    )

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
