#!/usr/bin/env python3
"""Hostile and damaged input through oomscope-cli: crafted files made by tests/hostile/make_hostile.py.

usage: test_hostile.py CLI DATA_DIR
Checks: no crash or "internal error" on any of them; memory bounded by the documented budget; output that
never drives the terminal, is always valid UTF-8 JSON and never destroys a file; truthful error classes;
several files where one is damaged; .xplane.pb.gz.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(os.path.dirname(HERE), "hostile", "make_hostile.py")
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run(cli, *args):
    """Runs the CLI; returns (exit code, stdout bytes, stderr text, max RSS in MiB)."""
    p = subprocess.Popen([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=300)
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN only cumulatively, so measure with
    # wait4 in run_rss() where it matters.
    return p.returncode, out, err.decode("utf-8", "replace")


def run_rss(cli, *args):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(cli, [cli, *args])
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024.0


def make(kind, path, **opts):
    cmd = [sys.executable, MAKE, kind, path]
    for k, v in opts.items():
        cmd += ["--" + k, str(v)]
    subprocess.run(cmd, check=True)
    return path


def main():
    cli, data = sys.argv[1], sys.argv[2]
    gemm = os.path.join(data, "jax0.8_rocm_mi300x_gemm.xplane.pb")
    conv = os.path.join(data, "jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb")
    tmp = tempfile.mkdtemp(prefix="oomscope_hostile_")
    out_root = tempfile.mkdtemp(prefix="oomscope_hostile_out_")
    try:
        # --- terminal safety and UTF-8 -------------------------------------------------------------
        esc = make("escape-names", os.path.join(tmp, "esc.xplane.pb"))
        for args in (["info", esc], ["report", esc]):
            code, out, err = run(cli, *args)
            check(code == 0, f"{args[0]} on escape names: exit {code} {err}")
            check(b"\x1b" not in out and b"\x07" not in out, f"{args[0]}: ESC/BEL reached the terminal")
            check(b"\\x1b[2J" in out, f"{args[0]}: the escaped name is shown")
        bad = make("bad-utf8-names", os.path.join(tmp, "bad.xplane.pb"))
        code, out, err = run(cli, "info", bad, "--json")
        check(code == 0 and "internal error" not in err, f"info --json on invalid UTF-8: exit {code} {err}")
        doc = json.loads(out.decode("utf-8"))  # strict: must be valid UTF-8
        check(
            any("\ufffd" in m["name"] for m in doc["modules"]),
            "info --json replaces invalid bytes with U+FFFD",
        )
        code, out, err = run(cli, "info", bad)
        check(code == 0 and b"\\xff\\xfe\\xc0_" in out, "info text escapes invalid bytes")
        outdir = os.path.join(out_root, "out")  # not below any capture's folder
        os.mkdir(outdir)
        report_json = os.path.join(outdir, "r.json")
        code, out, err = run(cli, "report", bad, "--json", report_json)
        check(code == 0, f"report --json on invalid UTF-8: exit {code} {err}")
        with open(report_json, encoding="utf-8") as f:
            json.load(f)

        # --- output that never destroys a file ---------------------------------------------------------
        code, out, err = run(cli, "report", gemm, "--json", "")
        check(code == 2 and "--json needs a file name" in err, f"--json '': exit {code} {err}")
        missing = os.path.join(out_root, "no", "such", "r.json")
        code, out, err = run(cli, "report", gemm, "--json", missing)
        check(
            code == 1 and missing in err and "No such file or directory" in err and "internal" not in err,
            f"--json into a missing folder: exit {code} {err}",
        )
        code, out, err = run(cli, "report", gemm, "--json", report_json)
        check(code == 0 and "replaced the existing" in err, f"replacing says so: {err}")
        capdir = os.path.join(out_root, "caps")
        os.mkdir(capdir)
        cap = os.path.join(capdir, "host.xplane.pb")
        shutil.copy(gemm, cap)
        os.symlink(os.path.join(capdir, "later.json"), os.path.join(outdir, "dangling.json"))
        code, out, err = run(cli, "report", cap, "--json", os.path.join(outdir, "dangling.json"))
        check(
            code == 1 and "will not write into the capture's folder" in err,
            f"a dangling link into the capture's folder is refused: exit {code} {err}",
        )
        check(not os.path.exists(os.path.join(capdir, "later.json")), "nothing was written through the link")
        os.link(cap, os.path.join(outdir, "hard.json"))
        before = open(cap, "rb").read()
        code, out, err = run(cli, "report", cap, "--json", os.path.join(outdir, "hard.json"))
        check(code == 0 and open(cap, "rb").read() == before, "a hard link to a capture is never overwritten")

        # --- several files -----------------------------------------------------------------------------
        folder = os.path.join(tmp, "run")
        os.mkdir(folder)
        shutil.copy(gemm, os.path.join(folder, "a.xplane.pb"))
        make("damaged", os.path.join(folder, "b.xplane.pb"), offset=5000)
        code, out, err = run(cli, "report", folder)
        text = out.decode()
        check(code == 5, f"a folder with one damaged file: exit {code}, expected 5")
        check("== " + os.path.join(folder, "a.xplane.pb") in text, "the good file is reported")
        check(
            "not reported: the capture is damaged at byte" in text, "the damaged file is named in the report"
        )
        check("b.xplane.pb" in err, "and on stderr")
        code, out, err = run(cli, "report", gemm, os.path.join(folder, "a.xplane.pb"))
        text = out.decode()
        check(
            code == 0 and "multi-host: this is one of" not in text and "one host:" in text,
            "two files of one host: not multi-host",
        )
        code, out, err = run(cli, "report", gemm, gemm)
        text = out.decode()
        check(
            code == 0 and text.count("== ") == 1 and "the same file was given again" in text,
            "the same file twice is reported once, and said",
        )

        # --- truthful classification ------------------------------------------------------------------
        zeros = os.path.join(tmp, "zeros.xplane.pb")
        with open(zeros, "wb") as f:
            f.truncate((2 << 30) - 1)  # sparse
        code, rss = run_rss(cli, "info", zeros)
        check(code == 1 and rss < 200, f"2 GiB of zeros: exit {code}, {rss:.0f} MiB (refused at the start)")
        code, out, err = run(cli, "info", zeros)
        check("not an XSpace capture" in err and "zero bytes" in err, f"zeros: {err}")
        rnd = make("random", os.path.join(tmp, "random.xplane.pb"), size=4096)
        code, out, err = run(cli, "info", rnd)
        check(code == 1 and "truncated" not in err and "internal" not in err, f"random bytes: {err}")
        # Cut inside /host:metadata (bytes 4 .. 21,707): refused. A cut after the plan and the device
        # planes is reported with the cut said (test_cut_capture.py).
        cut = make("truncated", os.path.join(tmp, "cut.xplane.pb"), offset=10000)
        code, out, err = run(cli, "info", cut)
        check(code == 1 and "truncated" in err and "at byte" in err, f"cut file: {err}")

        # --- joined to itself, repeated errors, memory ----------------------------------------------------
        joined = make("joined", os.path.join(tmp, "joined.xplane.pb"), copies=4)
        code, out, err = run(cli, "report", joined)
        check(code == 0 and b"appears 4 times with identical bytes" in out, "a joined capture is detected")
        check(
            out.count(b"with identical bytes") == 1,
            "a capture joined to itself gets one summary line, not one per plane",
        )
        # Two different real captures concatenated into one file: read as one run, and said so.
        two = os.path.join(tmp, "two_runs.xplane.pb")
        with open(two, "wb") as f:
            for name in ("jax0.8_rocm_mi300x_gemm.xplane.pb", "jax0.8_rocm_mi300x_elementwise.xplane.pb"):
                with open(os.path.join(data, name), "rb") as part:
                    f.write(part.read())
        for command in ("report", "info"):
            code, out, err = run(cli, command, two)
            check(
                code == 0 and b"2 different captures joined together" in out,
                f"{command}: two concatenated captures are said to be different runs",
            )
        errs = make("empty-errors", os.path.join(tmp, "errs.xplane.pb"), size=8 << 20)
        code, out, err = run(cli, "report", errs)
        check(
            code == 0 and len(out) < 200_000 and b"is listed 4,194,304 times" in out,
            f"4 M empty errors: exit {code}, {len(out)} bytes of output",
        )
        size = 32 << 20
        limit_mib = (8 * size + (64 << 20)) / (
            1 << 20
        ) + 64  # the budget + the program itself and its mapping
        for kind in (
            "empty-events",
            "tiny-events",
            "empty-lines",
            "hostnames",
            "empty-hostnames",
            "metadata",
            "planes",
            "empty-errors",
        ):
            path = make(kind, os.path.join(tmp, kind + ".xplane.pb"), size=size)
            code, rss = run_rss(cli, "info", path)
            check(
                code in (0, 1) and rss < limit_mib,
                f"{kind}: exit {code}, max RSS {rss:.0f} MiB (limit {limit_mib:.0f})",
            )
            code, out, err = run(cli, "info", path)
            check("internal error" not in err and (code == 0 or path in err), f"{kind}: {err.strip()}")
            os.remove(path)

        # --- HloProtos that would amplify in memory: refused before parsing, the other modules read -------
        code, out, err = run(cli, "info", gemm)
        modules = [line for line in out.decode().splitlines() if line.startswith("modules (")]
        for kind in (
            "hlo-instructions",
            "hlo-computations",
            "hlo-metadata",
            "hlo-tuple-shapes",
            "hlo-dimensions",
            "hlo-unknown",
            "hlo-buffers",
        ):
            path = make(kind, os.path.join(tmp, kind + ".xplane.pb"), size=size, source=gemm)
            code, rss = run_rss(cli, "info", path)
            check(
                code == 0 and rss < limit_mib,
                f"{kind}: exit {code}, max RSS {rss:.0f} MiB (limit {limit_mib:.0f})",
            )
            code, out, err = run(cli, "info", path)
            text = out.decode()
            check(
                code == 0
                and "problem: jit_crafted(424242): its HloProto (" in text
                and "was skipped: parsing it would take more than" in text
                and kind + ".xplane.pb" in text,
                f"{kind}: the crafted module is named as skipped: {text[-400:]} {err}",
            )
            check(modules and modules[0] in text, f"{kind}: the source's modules are still read")
            os.remove(path)
        side = make("hlo-sidecar", os.path.join(tmp, "crafted(1).hlo_proto.pb"), size=size)
        code, rss = run_rss(cli, "report", side)
        check(code == 1 and rss < limit_mib, f"a crafted sidecar: exit {code}, max RSS {rss:.0f} MiB")
        code, out, err = run(cli, "report", side)
        check(side in err and "parsing it would take more than" in err, f"a crafted sidecar: {err}")

        # --- consistency checks -------------------------------------------------------------------------
        frees = make("frees-only", os.path.join(tmp, "frees.xplane.pb"))
        code, out, err = run(cli, "report", frees)
        text = out.decode()
        check("frees of chunks never allocated" in text, "frees without allocations are a problem")
        check("disagree with the chunk just allocated or freed" in text, "in-use figures that do not add up")

        # --- gzip ---------------------------------------------------------------------------------------
        gz = os.path.join(tmp, "conv.xplane.pb.gz")
        with open(conv, "rb") as src, gzip.open(gz, "wb") as dst:
            dst.write(src.read())
        code, plain, _ = run(cli, "info", conv, "--json")
        code2, unz, err = run(cli, "info", gz, "--json")
        a, b = json.loads(plain), json.loads(unz)
        a.pop("file"), b.pop("file")
        check(
            b.pop("decompressed") is True and a.pop("decompressed") is False, "a .gz says it was decompressed"
        )
        check(code2 == 0 and a == b, f"a .xplane.pb.gz reads like the .xplane.pb: {err}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(out_root, ignore_errors=True)
    print("ok" if not FAILURES else f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
