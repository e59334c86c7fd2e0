#!/usr/bin/env python3
"""Errors the CLI prints for a file that is not a capture but sits beside one: a JAX/TensorFlow
<host>.trace.json.gz (info and report) and an .hlo_proto.pb sidecar (info; report reads a sidecar as a
plan). One line on stderr,
`oomscope-cli: error: <file>: ...`, naming the capture to open; exit code 1. The same files alone keep the
reader's own wording (no companion named).

usage: test_companion_errors.py CLI DATA_DIR
"""
import gzip
import os
import shutil
import sys
import tempfile

from cli_checks import Checks, run


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()

    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "host0.trace.json.gz")
        with gzip.open(trace, "wt") as f:
            f.write('{"displayTimeUnit": "ns", "traceEvents": [{"ph": "X", "name": "step", "ts": 1}]}')
        for command in ("info", "report"):
            alone = run(cli, command, trace)
            check(alone.returncode == 1, f"{command} alone: exit {alone.returncode}")
            check("host0.xplane.pb" not in alone.stderr, f"{command} alone names a capture: {alone.stderr!r}")
        shutil.copy(
            os.path.join(data, "jax0.8_rocm_mi300x_gemm.xplane.pb"), os.path.join(folder, "host0.xplane.pb")
        )
        for command in ("info", "report"):
            p = run(cli, command, trace)
            check(p.returncode == 1, f"{command}: exit {p.returncode}")
            expected = (
                f"oomscope-cli: error: {trace}: is a trace-viewer export (.trace.json.gz), not a capture; "
                "the capture it belongs to is host0.xplane.pb in the same folder: open that instead\n"
            )
            check(p.stderr == expected, f"{command}: stderr {p.stderr!r}")
            check(p.stdout == "", f"{command}: stdout {p.stdout!r}")
        sidecar = os.path.join(folder, "jit_f(3).hlo_proto.pb")
        shutil.copy(os.path.join(data, "jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb"), sidecar)
        p = run(cli, "info", sidecar)
        check(p.returncode == 1, f"info sidecar: exit {p.returncode}")
        check(
            p.stderr.count("\n") == 1 and "host0.xplane.pb in the same folder" in p.stderr,
            f"info sidecar: stderr {p.stderr!r}",
        )
        check(run(cli, "report", sidecar).returncode == 0, "report no longer reads a sidecar as a plan")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
