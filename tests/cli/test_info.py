#!/usr/bin/env python3
"""`oomscope-cli info`: JSON shape and types, error wording on stderr, exit codes, no progress on a pipe.

usage: test_info.py CLI DATA_DIR
"""
import gzip
import json
import os
import sys
import tempfile

import cli_checks
from cli_checks import Checks


def run(cli, *args):
    return cli_checks.run(cli, "info", *args)


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()

    for name in sorted(os.listdir(data)):
        if not name.endswith(".xplane.pb") or name.startswith("CORRUPT"):
            continue
        path = os.path.join(data, name)
        p = run(cli, path, "--json")
        check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
        check(p.stderr == "", f"{name}: stderr not empty on a pipe: {p.stderr!r}")
        doc = json.loads(p.stdout)
        check(doc["file"] == path, f"{name}: file")
        check(isinstance(doc["hostnames"], list), f"{name}: hostnames")
        check(isinstance(doc["allocator_retries"], int), f"{name}: allocator_retries")
        for plane in doc["planes"]:
            check(set(plane) >= {"name", "lines", "events"}, f"{name}: plane keys")
        for m in doc["modules"]:
            for key in (
                "name",
                "program_id",
                "parameters_bytes",
                "donated_bytes",
                "outputs_bytes",
                "temp_bytes",
                "total_allocation_bytes",
            ):
                check(key in m, f"{name}: module key {key}")
            check(
                isinstance(m["program_id"], int) and 0 <= m["program_id"] < 2**64,
                f"{name}: program_id type",
            )
        ids = [m["program_id"] for m in doc["modules"]]
        check(ids == sorted(ids), f"{name}: modules sorted by program id")
        for a in doc["allocators"]:
            for key in (
                "name",
                "allocations",
                "deallocations",
                "max_bytes_in_use",
                "peak_bytes_in_use",
                "capacity_bytes",
            ):
                check(isinstance(a.get(key), (int, str)), f"{name}: allocator key {key}")
            check(a["max_bytes_in_use"] <= a["capacity_bytes"], f"{name}: {a['name']} in use above capacity")

    corrupt = os.path.join(data, "CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb")
    p = run(cli, corrupt)
    check(p.returncode == 1, f"corrupt: exit {p.returncode}")
    check(
        corrupt in p.stderr and "damaged" in p.stderr and "EF BF BD" in p.stderr,
        f"corrupt: stderr {p.stderr!r}",
    )
    check(p.stdout == "", "corrupt: stdout not empty")

    with tempfile.TemporaryDirectory() as tmp:
        gz = os.path.join(tmp, "host.trace.json.gz")
        with gzip.open(gz, "wb") as f:
            f.write(b'{"traceEvents": []}')
        p = run(cli, gz)
        check(p.returncode == 1 and "gzip" in p.stderr and ".xplane.pb" in p.stderr, f"gzip: {p.stderr!r}")
        p = run(cli, os.path.join(tmp, "missing.xplane.pb"))
        check(p.returncode == 1 and "missing.xplane.pb" in p.stderr, f"missing: {p.stderr!r}")
        # A folder with a trace but no capture or snapshot: the trace is read, and named for what it lacks.
        p = run(cli, tmp)
        check(
            p.returncode == 1 and "host.trace.json.gz" in p.stderr and "no [memory] events" in p.stderr,
            f"folder with a trace only: {p.stderr!r}",
        )
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        p = run(cli, empty)
        check(
            p.returncode == 1 and "holds no .xplane.pb" in p.stderr, f"folder without captures: {p.stderr!r}"
        )

    p = run(cli)
    check(p.returncode == 2, f"no argument: exit {p.returncode}")
    p = run(cli, corrupt, "--bogus")
    check(p.returncode == 2 and "--bogus" in p.stderr, f"bad option: {p.stderr!r}")

    return check.finish(count=True)


if __name__ == "__main__":
    sys.exit(main())
