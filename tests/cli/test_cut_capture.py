#!/usr/bin/python3
"""Captures cut short: real captures of tests/data cut at 99 % (inside /host:CPU, after the plan and the
device planes) are reported with what they hold, and the cut is said; captures cut where the plan or a
device plane is incomplete stay refused with the file and the byte named.

For each JAX capture cut at 99 %, `report --json -` must give exit 0, every module of the whole file with
the same plan figures (the `modules` rows without executions, and the analysed module's `plan` object when
the same module is analysed), the cut in `problems` and `limits`, and no runtime events of the cut plane.
Usage: test_cut_capture.py OOMSCOPE_CLI DATA_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile

CAPTURES = (
    "jax0.8_rocm_mi300x_gemm.xplane.pb",
    "jax0.8_rocm_mi300x_elementwise.xplane.pb",
    "jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb",
    "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb",
    "jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
    "jax_tpu_v6e_inference.xplane.pb",
)

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def report(cli, path, *extra):
    code, out, err = run(cli, "report", path, "--json", "-", *extra)
    return code, (json.loads(out)["hosts"][0] if code == 0 else None), err


def plan_rows(host):
    return [{k: v for k, v in m.items() if not k.startswith("executions")} for m in host["modules"]]


def cut_copy(source, fraction, tmp):
    data = open(source, "rb").read()
    path = os.path.join(tmp, "cut_" + os.path.basename(source))
    with open(path, "wb") as f:
        f.write(data[: int(len(data) * fraction)])
    return path


def main():
    cli, data = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name in CAPTURES:
            whole_path = os.path.join(data, name)
            cut = cut_copy(whole_path, 0.99, tmp)
            code, host, err = report(cli, cut)
            check(code == 0, f"{name} cut at 99 %: reported (exit {code}) {err.strip()}")
            if host is None:
                continue
            _, whole, _ = report(cli, whole_path)
            check(
                plan_rows(host) == plan_rows(whole),
                f"{name}: every module's plan figures as in the whole file",
            )
            module = whole["plan"]["program_id"] if whole["plan"] else None
            if module is not None:
                _, same, _ = report(cli, cut, "--module", module)
                check(
                    same["plan"] == whole["plan"], f"{name}: the plan of module {module} as in the whole file"
                )
            problems = " ".join(host["problems"])
            check(
                "the file is cut short" in problems and '"/host:CPU"' in problems,
                f"{name}: the cut is named in problems",
            )
            check(
                any(
                    lim.startswith('cut short: the file ends inside the plane "/host:CPU"')
                    for lim in host["limits"]
                ),
                f"{name}: and in limits",
            )
            # The allocator events are in /host:CPU on every one of these captures; so are the GPU captures'
            # executions (the TPU capture's device planes carry module spans of their own).
            check(host["runtime"]["allocators"] == [], f"{name}: no allocator events from the cut host plane")
            if "tpu" not in name:
                check(
                    host["runtime"]["executions_total"] == 0, f"{name}: no executions from the cut host plane"
                )
            code, text, _ = run(cli, "report", cut)
            check(
                code == 0 and "cut short: the file ends inside the plane" in text, f"{name}: the text says it"
            )
            # Each runtime line says it counts only the planes read whole; none states a count of the cut
            # plane's events as a fact about the run.
            lines = text.splitlines()
            rows = [x for x in lines if re.search(r"\) +peak .* executions \d", x)]
            check(
                rows and all("in the planes read whole" in x for x in rows),
                f"{name}: every module row's executions are hedged",
            )
            check(
                "host executions in the capture" not in text
                and "host executions in the planes read whole" in text,
                f"{name}: the host executions are counted in the planes read whole",
            )
            check(
                not any(
                    x.strip().startswith("executions of ") and "in the planes read whole" not in x
                    for x in lines
                ),
                f"{name}: the analysed module's executions are hedged",
            )
            check(
                "no allocator events in the capture" not in text
                and "AllocatorRetry: none [measured]" not in text,
                f"{name}: the allocator lines are hedged",
            )
            if "tpu" not in name:
                check(
                    "never launched a kernel: 0" not in text,
                    f"{name}: no count of launches missed without executions",
                )
            code, info, _ = run(cli, "info", cut)
            check(code == 0 and "the file is cut short" in info, f"{name}: info says it")

        # Really broken: the plan cut (gemm at 10 %), a device plane cut (TPU at 20 %, TF2 at 99 %).
        for name, fraction, words in (
            ("jax0.8_rocm_mi300x_gemm.xplane.pb", 0.10, "nothing before the cut holds the plan"),
            (
                "jax_tpu_v6e_inference.xplane.pb",
                0.20,
                'inside the plane "/device:TPU:1", which is needed whole',
            ),
            ("tf2_gpu_v100x8_bert_multiworker.xplane.pb", 0.99, 'inside the plane "/device:GPU:6"'),
        ):
            cut = cut_copy(os.path.join(data, name), fraction, tmp)
            code, out, err = run(cli, "report", cut)
            check(
                code == 1 and "truncated" in err and "at byte" in err and words in err and cut in err,
                f"{name} cut at {fraction:.0%}: refused naming the file, the byte and the plane: "
                + err.strip(),
            )
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
