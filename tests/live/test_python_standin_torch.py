"""The Python agent's CUDA and MPS sources and its OOM hook, without a GPU or a Mac: the unchanged agent
(`python3 -m oomscope_agent`) wraps a trainer loop over a stand-in torch (tests/live/standin_torch, first
on PYTHONPATH), whose torch.cuda / torch.mps calls return the real shapes (memory_stats' keys of PyTorch
2.2, mem_get_info's (free, total), the MPS byte counts). Checks the hello and every sample's figures
against the loop's own arithmetic, the `oom` events of a caught OOM (the allocator's counter moving) and
of the fatal torch.cuda.OutOfMemoryError, and that each wrote its snapshot through the stand-in's
torch.cuda.memory._dump_snapshot when history was on (--history), and none when it was off.

    python3 test_python_standin_torch.py OOMSCOPE_CLI [TRAINER]
"""

import json
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "standin_torch"))
from live_util import AGENT_PATH, check  # noqa: E402
from standin_train import MiB, figures  # noqa: E402

STANDIN = os.path.join(HERE, "standin_torch")
TRAIN = os.path.join(STANDIN, "standin_train.py")
LEAK = MiB


def run(tmp, name, agent_args, train_args):
    """Runs the agent around the stand-in loop; returns (messages read over its socket, stderr, exit)."""
    ep_file = os.path.join(tmp, name + ".ep")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([STANDIN, AGENT_PATH]))
    err_path = os.path.join(tmp, name + ".stderr")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "oomscope_agent",
                "--port",
                "0",
                "--endpoint-file",
                ep_file,
                "--interval",
                "20",
            ]
            + agent_args
            + [TRAIN, "--leak", str(LEAK)]
            + train_args,
            env=env,
            cwd=tmp,
            stderr=err,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.time() + 60
        while not os.path.exists(ep_file):
            if proc.poll() is not None or time.time() > deadline:
                raise SystemExit("FAILED: the agent did not start: " + open(err_path).read())
            time.sleep(0.02)
        host, port = open(ep_file).read().split()[0].rsplit(":", 1)
        messages, buf = [], b""
        with socket.create_connection((host, int(port)), timeout=60) as sock:
            while True:
                try:
                    chunk = sock.recv(65536)
                except (ConnectionResetError, socket.timeout):
                    break
                if not chunk:
                    break
                buf += chunk
                *whole, buf = buf.split(b"\n")
                messages += [json.loads(x) for x in whole if x.strip()]
        code = proc.wait(60)
    return messages, open(err_path).read(), code


def of(messages, kind):
    return [m for m in messages if m.get("type") == kind]


def check_snapshot(path, what):
    check(path and os.path.exists(path), "%s: the oom event names a snapshot that exists (%s)" % (what, path))
    with open(path, "rb") as f:
        snap = pickle.load(f)
    check(
        snap.get("standin_writer") == "_dump_snapshot",
        "%s: written by torch.cuda.memory._dump_snapshot" % what,
    )
    check(any(snap["device_traces"]), "%s: the snapshot holds the recorded history" % what)


with tempfile.TemporaryDirectory() as tmp:
    # CUDA: history on, an OOM caught at step 20 (the counter moves), then a fatal one at step 40.
    msgs, err, code = run(
        tmp, "cuda", ["--history"], ["--backend", "cuda", "--caught-oom-at", "20", "--oom-at", "40"]
    )
    check(code != 0, "the script died of its OutOfMemoryError (exit %d)" % code)
    hello = of(msgs, "hello")[-1]
    check(
        hello["backend"] == "cuda" and hello["device"] == "Stand-in CUDA device",
        "hello: cuda, the device's name",
    )
    check(hello["total_bytes"] == 16 << 30, "hello: total_bytes from get_device_properties().total_memory")
    check(hello["framework"] == "torch 2.2.0+standin", "hello: the framework's version")
    samples = [s for s in of(msgs, "sample") if "step" in s and "allocated" in s]
    check(len(samples) >= 10, "%d samples with a step and CUDA figures" % len(samples))
    # The loop sets a step's figures, then counts the step: a sample sees the figures of its step or the next.
    fits = 0
    for s in samples:
        for step in (s["step"], s["step"] + 1):
            f = figures(step, LEAK)
            if s["allocated"] == f["allocated"] and s["reserved"] == f["reserved"]:
                fits += 1
                break
    check(
        fits >= 0.9 * len(samples),
        "allocated/reserved are memory_stats' figures (%d of %d)" % (fits, len(samples)),
    )
    last = samples[-1]
    check(last["peak_allocated"] >= last["allocated"], "peak_allocated from allocated_bytes.all.peak")
    check(last["active"] == last["allocated"], "active from active_bytes.all.current")
    check(
        last["inactive_split"] == (last["reserved"] - last["allocated"]) // 4,
        "inactive_split from inactive_split_bytes.all.current",
    )
    check(last["device_used"] == last["reserved"] + 300 * MiB, "device_used = total - free of mem_get_info()")
    check(
        last["alloc_retries"] == last["step"] // 10 or last["alloc_retries"] == (last["step"] + 1) // 10,
        "retries",
    )
    check(last["ooms"] == 1, "ooms from num_ooms")
    ooms = [e for e in of(msgs, "event") if e["kind"] == "oom"]
    check(len(ooms) == 2, "two oom events: the caught one and the fatal one (%d)" % len(ooms))
    check("allocator OOM count now 1" in ooms[0]["message"], "the caught OOM: " + ooms[0]["message"])
    check(ooms[0].get("step") in (19, 20), "at its step (%s)" % ooms[0].get("step"))
    check_snapshot(ooms[0].get("path"), "caught OOM")
    check(
        ooms[1]["message"].startswith("CUDA out of memory. Tried to allocate 2.00 GiB"),
        "the fatal OOM's message",
    )
    check_snapshot(ooms[1].get("path"), "fatal OOM")

    # History off: the OOM is reported, and no snapshot is written (it would hold no history).
    before = set(f for f in os.listdir(tmp) if f.endswith(".pickle"))
    msgs, err, code = run(tmp, "nohist", [], ["--backend", "cuda", "--steps", "30", "--caught-oom-at", "10"])
    ooms = [e for e in of(msgs, "event") if e["kind"] == "oom"]
    check(len(ooms) == 1 and "path" not in ooms[0], "history off: the oom event carries no snapshot")
    check(
        set(f for f in os.listdir(tmp) if f.endswith(".pickle")) == before, "  and no snapshot file appeared"
    )

    # MPS: the allocated, driver and recommended-maximum figures of torch.mps.
    msgs, err, code = run(tmp, "mps", [], ["--backend", "mps", "--steps", "30"])
    check(code == 0, "the MPS loop ran to its end")
    hello = of(msgs, "hello")[-1]
    check(
        hello["backend"] == "mps" and hello["total_bytes"] == 8 << 30,
        "hello: mps, recommended_max as the total",
    )
    samples = [s for s in of(msgs, "sample") if "step" in s and "driver" in s]
    check(len(samples) >= 5, "%d MPS samples" % len(samples))
    ok = 0
    for s in samples:
        for step in (s["step"], s["step"] + 1):
            f = figures(step, LEAK)
            if s["allocated"] == f["allocated"] and s["driver"] == f["reserved"] + 2 * step * LEAK:
                ok += 1
                break
    check(ok >= 0.9 * len(samples), "allocated and driver from torch.mps (%d of %d)" % (ok, len(samples)))
    check(all(s["recommended_max"] == 8 << 30 for s in samples), "recommended_max from torch.mps")
    check(not any("device_used" in s or "reserved" in s for s in samples), "no CUDA figures on MPS")
print("all stand-in torch cases passed")
