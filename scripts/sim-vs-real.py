#!/usr/bin/env python3
"""Simulator vs a real LibTorch run on the same scenes, budget, seed and policy.

    scripts/sim-vs-real.py TRAINER CLI [WORKDIR] -- [oomscope-demo-trainer options...]

1. `TRAINER --calibrate WORKDIR/model.json` (with the model options given) measures fixed bytes, bytes per
   point and time per point;
2. `TRAINER OPTIONS --trace WORKDIR/real.jsonl` trains for real;
3. `CLI simulate` predicts the same run from the model file (`--model`, or `--fixed-bytes` and
   `--bytes-per-point` when the CLI has no `--model`), with the policy, scenes, batch, seed and budget read
   from the real trace's header, and no fragmentation penalty (the CPU budget has none);
4. the two traces are compared attempt by attempt: per cent of events with the same outcome (and the same
   outcome and point count), the first divergence, and the wall times.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

MODEL_OPTIONS = {"--width": 1, "--no-pool": 0, "--seed": 1, "--threads": 1, "--lr": 1}


def read_trace(path):
    header, events, totals = None, [], None
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            if j["type"] == "header":
                header = j
            elif j["type"] == "event":
                events.append(j)
            else:
                totals = j
    return header, events, totals


def model_args(args):
    out, i = [], 0
    while i < len(args):
        n = MODEL_OPTIONS.get(args[i])
        if n is not None:
            out += args[i : i + 1 + n]
            i += 1 + n
        else:
            i += 1
    return out


def main():
    if "--" not in sys.argv:
        print(__doc__, file=sys.stderr)
        return 2
    sep = sys.argv.index("--")
    pos, opts = sys.argv[1:sep], sys.argv[sep + 1 :]
    if len(pos) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    trainer, cli = pos[0], pos[1]
    work = pos[2] if len(pos) > 2 else tempfile.mkdtemp(prefix="oomscope-sim-vs-real-")
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "model.json")
    real = os.path.join(work, "real.jsonl")
    sim = os.path.join(work, "sim.jsonl")

    subprocess.run([trainer, "--calibrate", model] + model_args(opts), check=True, stdout=subprocess.DEVNULL)
    m = json.load(open(model))
    t0 = time.monotonic()
    subprocess.run([trainer] + opts + ["--trace", real, "--quiet"], check=False, stdout=subprocess.DEVNULL)
    real_wall = time.monotonic() - t0
    header, real_events, real_totals = read_trace(real)
    c = header["config"]
    p = c["policy"]

    # The scenes as the header lists them (drawn or read), so the simulator takes exactly these sizes.
    sizes = os.path.join(work, "sizes.txt")
    with open(sizes, "w") as f:
        f.write("\n".join(str(n) for n in c["scenes"]["sizes"]) + "\n")
    sim_args = [
        cli,
        "simulate",
        "--seed",
        str(c["seed"]),
        "--batch",
        str(c["batch"]),
        "--epochs",
        str(c["epochs"]),
        "--catch",
        p["catch"],
        "--grad",
        p["grad"],
        "--split",
        p["split"],
        "--axis",
        p["axis"],
        "--floor",
        str(p["floor"]),
        "--trace",
        sim,
        "--dist",
        sizes,
    ]
    help_text = subprocess.run([cli, "help", "simulate"], capture_output=True, text=True).stdout
    if "--model" in help_text:
        sim_args += ["--model", model]
    else:
        sim_args += [
            "--fixed-bytes",
            str(m["fixed_bytes"]),
            "--bytes-per-point",
            str(round(m["bytes_per_point"])),
        ]
    # After --model, so that these win: the run's budget, and no fragmentation (the CPU allocator has none).
    sim_args += ["--budget", str(c["memory"]["budget"]), "--frag-penalty", "0"]
    if "--on-floor" in help_text and "on_floor" in p:
        sim_args += ["--on-floor", p["on_floor"]]
    if "--max-batches" in help_text and c.get("max_batches"):
        sim_args += ["--max-batches", str(c["max_batches"])]
    if c.get("fault", {}).get("kind", "none") != "none":
        sim_args += ["--bug-kind", c["fault"]["kind"], "--bug-scene", str(c["fault"]["scene"])]
    if p["catch"] == "runtime-error" and "runtime-error" not in help_text:
        print("note: this simulator has no runtime-error catch mode; simulating with everything")
        sim_args[sim_args.index("runtime-error")] = "everything"
    r = subprocess.run(sim_args, capture_output=True, text=True)
    if r.returncode not in (0, 4):
        print("simulate failed:", " ".join(sim_args), r.stderr, file=sys.stderr)
        return 1
    _, sim_events, sim_totals = read_trace(sim)
    batches = {e["batch"] for e in real_events}
    sim_events = [e for e in sim_events if e["batch"] in batches]

    n = max(len(real_events), len(sim_events))
    same_outcome = sum(1 for a, b in zip(real_events, sim_events) if a["outcome"] == b["outcome"])
    same_both = sum(
        1
        for a, b in zip(real_events, sim_events)
        if a["outcome"] == b["outcome"] and a["points"] == b["points"]
    )
    first = next(
        (
            i
            for i, (a, b) in enumerate(zip(real_events, sim_events))
            if (a["outcome"], a["points"]) != (b["outcome"], b["points"])
        ),
        None,
    )
    if first is None and len(real_events) != len(sim_events):
        first = min(len(real_events), len(sim_events))
    attempts = [e for e in real_events if e["outcome"] != "dropped"]
    print("workload:", " ".join(opts))
    print(
        f"model file: fixed {m['fixed_bytes']} bytes, {m['bytes_per_point']:.1f} bytes/point, "
        f"{m['time_fixed_s'] * 1e3:.2f} ms + {m['time_per_point_s'] * 1e6:.2f} us/point"
    )
    print(f"simulator: {' '.join(sim_args[1:])}")
    print(f"events: real {len(real_events)}, simulated {len(sim_events)} (same batches)")
    print(
        f"same outcome: {same_outcome}/{n} = {100.0 * same_outcome / max(n, 1):.1f} %; "
        f"same outcome and points: {same_both}/{n} = {100.0 * same_both / max(n, 1):.1f} %"
    )
    if first is None:
        print("first divergence: none")
    else:
        a = real_events[first] if first < len(real_events) else None
        b = sim_events[first] if first < len(sim_events) else None

        def show(e):
            return "-" if e is None else f"{e['origin']} {e['points']} points {e['outcome']}"

        print(
            f"first divergence: event {first} (batch {(a or b)['batch']}): real {show(a)}, "
            f"simulated {show(b)}"
        )
    ok = sorted(e["duration_ns"] / 1e6 for e in attempts if e["outcome"] == "ok")
    failed = sorted(e["duration_ns"] / 1e6 for e in attempts if e["outcome"] != "ok")

    def med(v):
        return v[len(v) // 2] if v else 0.0

    print(
        f"real: {len(attempts)} attempts ({len(failed)} failed), wall {real_wall:.2f} s, trace time "
        f"{real_totals['time_ns'] / 1e9:.2f} s; ok attempts median {med(ok):.1f} ms (max "
        f"{max(ok) if ok else 0:.1f}), failed attempts median {med(failed):.1f} ms (max "
        f"{max(failed) if failed else 0:.1f})"
    )
    if len(batches) == sim_totals["batches"]:
        print(
            f"points applied: real {real_totals['points_applied']}, simulated {sim_totals['points_applied']}"
        )
    print(f"traces: {real} {sim}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
