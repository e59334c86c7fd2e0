"""The C++ agent's NVML path without a GPU: `oomscope-cli serve --pid PID` with a stand-in libnvidia-ml.so.1
(nvml_standin.cpp, built by tests/CMakeLists.txt) on its LD_LIBRARY_PATH, so the agent's own
dlopen("libnvidia-ml.so.1") loads it. Each case scripts the stand-in's figures and error codes through its
environment and checks what the agent serves (hello and samples, read over its socket) and says (stderr):
the figures as scripted, the process-list variant it bound (v1, _v2, _v3), one sentence for each error
state and no crash.

    python3 test_nvml_standin.py OOMSCOPE_CLI STANDIN_DIR
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

CLI, ROOT = sys.argv[1], sys.argv[2]
GiB = 1 << 30


def check(cond, message):
    if not cond:
        raise SystemExit("FAILED: " + message)
    print("ok:", message)


def serve(variant, env_extra, seconds=2.5, interval=50):
    """Runs serve against a sleeping process with the stand-in `variant`; returns (hello, samples, stderr,
    calls) where calls are the stand-in's logged (entry point, code) pairs."""
    lib = os.path.join(ROOT, variant)
    if not os.path.exists(os.path.join(lib, "libnvidia-ml.so.1")):
        raise SystemExit("FAILED: no stand-in in %s: build the target nvml_standins first" % lib)
    target = subprocess.Popen(["sleep", "60"])
    with tempfile.TemporaryDirectory() as tmp:
        ep_file = os.path.join(tmp, "ep")
        log = os.path.join(tmp, "calls")
        env = dict(os.environ, LD_LIBRARY_PATH=lib, STANDIN_NVML_PID=str(target.pid), STANDIN_NVML_LOG=log)
        env.update(env_extra)
        err_path = os.path.join(tmp, "stderr")
        with open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [CLI, "serve", "--pid", str(target.pid), "--port", "0", "--interval", str(interval)]
                + ["--endpoint-file", ep_file, "--duration", "30"],
                env=env,
                stderr=err,
                stdout=subprocess.DEVNULL,
            )
            deadline = time.time() + 30
            while not os.path.exists(ep_file):
                if proc.poll() is not None or time.time() > deadline:
                    target.kill()
                    raise SystemExit("FAILED: serve did not start: " + open(err_path).read())
                time.sleep(0.05)
            host, port = open(ep_file).read().split()[0].rsplit(":", 1)
            messages = []
            with socket.create_connection((host, int(port)), timeout=10) as sock:
                buf = b""
                end = time.time() + seconds
                while time.time() < end:
                    sock.settimeout(max(0.05, end - time.time()))
                    try:
                        chunk = sock.recv(65536)
                    except socket.timeout:
                        break
                    if not chunk:
                        break
                    buf += chunk
                    *whole, buf = buf.split(b"\n")
                    messages += [json.loads(x) for x in whole if x.strip()]
            alive = proc.poll() is None
            proc.terminate()
            rc = proc.wait(10)
        target.kill()
        target.wait()
        stderr = open(err_path).read()
        calls = [tuple(line.split()) for line in open(log)] if os.path.exists(log) else []
    check(alive and rc == 0, "%s %s: serve ran and stopped cleanly (exit %s)" % (variant, env_extra, rc))
    hello = next((m for m in messages if m.get("type") == "hello"), None)
    check(hello is not None, "a hello line came")
    samples = [m for m in messages if m.get("type") == "sample"]
    check(len(samples) >= 5, "%d samples came" % len(samples))
    return hello, samples, stderr, calls


def said(stderr, text):
    return sum(1 for line in stderr.splitlines() if text in line)


def used(samples):
    return [s["device_used"] for s in samples if "device_used" in s]


# The figures as scripted, through the newest process list each variant has.
script = ",".join(str(1_000_000 * (k + 1)) for k in range(400))
for variant, entry in (
    ("v3", "nvmlDeviceGetComputeRunningProcesses_v3"),
    ("v2", "nvmlDeviceGetComputeRunningProcesses_v2"),
    ("v1", "nvmlDeviceGetComputeRunningProcesses"),
):
    hello, samples, stderr, calls = serve(
        variant,
        {
            "STANDIN_NVML_USED": script,
            "STANDIN_NVML_TOTAL": str(16 * GiB),
            "STANDIN_NVML_NAME": "Stand-in 16G",
        },
    )
    check(
        hello["backend"] == "cuda" and hello["device"] == "Stand-in 16G",
        "%s: hello names the device" % variant,
    )
    check(
        hello["total_bytes"] == 16 * GiB,
        "%s: hello's total is the device's (%d)" % (variant, hello["total_bytes"]),
    )
    check(
        "device figures from NVML (Stand-in 16G)" in stderr,
        "%s: serve says where the figures come from" % variant,
    )
    values = used(samples)
    scripted = set(1_000_000 * (k + 1) for k in range(400))
    check(
        len(values) >= 5 and all(v in scripted for v in values),
        "%s: device_used is the scripted figure" % variant,
    )
    check(
        values == sorted(values) and len(set(values)) >= 3,
        "%s: in the scripted order (%s...)" % (variant, values[:4]),
    )
    listed = {c[0] for c in calls if c[0].startswith("nvmlDeviceGetComputeRunningProcesses")}
    check(listed == {entry}, "%s: the agent bound %s only (%s)" % (variant, entry, sorted(listed)))

# More processes than the agent's first array holds: NVML answers INSUFFICIENT_SIZE with the count, the
# agent asks again with room, and finds the process at the end of the list.
hello, samples, stderr, calls = serve("v3", {"STANDIN_NVML_OTHERS": "150", "STANDIN_NVML_USED": "7000000"})
check(used(samples) and set(used(samples)) == {7000000}, "150 other processes: the figure is still read")
check(("nvmlDeviceGetComputeRunningProcesses_v3", "7") in calls, "the first call was too small (code 7)")

# An error that comes and goes: one sentence when it starts, one when NVML answers again.
rcs = ",".join(["0"] * 10 + ["15"] * 15 + ["0"])
hello, samples, stderr, calls = serve(
    "v3", {"STANDIN_NVML_PROCS_RC": rcs, "STANDIN_NVML_USED": "5000000"}, seconds=3
)
check(said(stderr, "failed: GPU is lost (code 15); device_used is left out") == 1, "GPU lost: said once")
check(said(stderr, "NVML answers again: device_used is back") == 1, "recovery: said once")
check(samples[-1].get("device_used") == 5000000, "device_used comes back after the error")
check(all("rss" in s for s in samples), "the RSS figure goes on through the error")

for env, text, what in (
    (
        {"STANDIN_NVML_USED": "na"},
        "without a memory figure (NVML_VALUE_NOT_AVAILABLE)",
        "no figure for the process",
    ),
    ({"STANDIN_NVML_USED": "-"}, "does not list process", "process not listed"),
    ({"STANDIN_NVML_PROCS_RC": "4"}, "failed: Insufficient Permissions (code 4)", "no permission"),
    ({"STANDIN_NVML_PROCS_RC": "3"}, "failed: Not Supported (code 3)", "not supported"),
):
    hello, samples, stderr, calls = serve("v3", env)
    check(said(stderr, text) == 1, "%s: one sentence (%r)" % (what, text))
    check(not used(samples), "%s: no device_used" % what)

# Failures before any figure: serve falls back to what it has and says why, in its one note.
for variant, env, text in (
    (
        "v3",
        {"STANDIN_NVML_INIT_RC": "9"},
        "no device figures: NVML did not initialise: Driver Not Loaded (code 9)",
    ),
    ("v3", {"STANDIN_NVML_COUNT": "0"}, "no device figures: NVML sees no GPU"),
    (
        "v3",
        {"STANDIN_NVML_HANDLE_RC": "4"},
        "NVML gave no handle for device 0: Insufficient Permissions (code 4)",
    ),
    ("nomemory", {}, "no device figures: libnvidia-ml.so.1 lacks the functions needed"),
):
    hello, samples, stderr, calls = serve(variant, env)
    check(said(stderr, text) == 1, "%s %s: %r" % (variant, env, text))
    check(hello["backend"] == "cpu" and hello["total_bytes"] == 0, "  and the hello says cpu, no total")
    check(not used(samples) and all("rss" in s for s in samples), "  and the samples carry RSS only")

hello, samples, stderr, calls = serve("v3", {"STANDIN_NVML_MEMORY_RC": "3", "STANDIN_NVML_USED": "9000000"})
check(
    said(stderr, "NVML gave no memory figures for device 0: Not Supported (code 3)") == 1,
    "memory info fails: said once",
)
check(
    hello["total_bytes"] == 0 and set(used(samples)) == {9000000},
    "  capacity unknown, device_used still read",
)
print("all NVML stand-in cases passed")
