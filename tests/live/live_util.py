"""Helpers for the live-attach tests: a Python with torch, starting agents, reading watch's JSON lines."""

import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AGENT_PATH = os.path.join(ROOT, "app", "python-agent")
TRAIN = os.path.join(ROOT, "tests", "live", "train_tiny.py")
SKIP = 77  # ctest SKIP_RETURN_CODE


def torch_python():
    """An interpreter that imports torch (the test's own, else Debian's), or None."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if (
            exe
            and os.path.exists(exe)
            and subprocess.run([exe, "-c", "import torch"], capture_output=True).returncode == 0
        ):
            return exe
    return None


def start_agent(python, tmp, name, port=0, extra=(), script_args=("--steps", "1000000", "--sleep", "0.01")):
    """Starts `python -m oomscope_agent` wrapping the tiny trainer; returns (process, endpoint)."""
    ep_file = os.path.join(tmp, name + ".endpoint")
    if os.path.exists(ep_file):
        os.unlink(ep_file)
    env = dict(os.environ, PYTHONPATH=AGENT_PATH)
    err = open(os.path.join(tmp, name + ".stderr"), "ab")
    proc = subprocess.Popen(
        [
            python,
            "-m",
            "oomscope_agent",
            "--port",
            str(port),
            "--endpoint-file",
            ep_file,
            *extra,
            TRAIN,
            *script_args,
        ],
        env=env,
        stderr=err,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while not os.path.exists(ep_file):
        if proc.poll() is not None or time.time() > deadline:
            raise SystemExit("agent %s did not start (see %s.stderr)" % (name, name))
        time.sleep(0.05)
    with open(ep_file) as f:
        return proc, f.read().strip()


def lines(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def check(cond, message):
    if not cond:
        raise SystemExit("FAILED: " + message)
    print("ok:", message)


def wait_until_stepping(cli, endpoint, timeout=120):
    """Waits until the agent's samples carry an optimizer step (torch imported, the loop running): on a
    loaded machine torch's import alone takes seconds, during which the agent thread barely runs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = subprocess.run(
            [cli, "watch", endpoint, "--json", "--duration", "1.5"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        for line in out.splitlines():
            if '"sample"' in line and '"step"' in line:
                return
    raise SystemExit("FAILED: the trainer under %s never reported a step within %d s" % (endpoint, timeout))
