#!/usr/bin/env python3
"""Snapshots written as JSON, and gzip'd snapshots, read exactly like the pickle they came from.

Every .pickle in the test data is re-written here as .json, .json.gz and .pickle.gz; `report` on each must
print what it prints for the pickle (the header line names the file and its encoding, so it is left out)
and `report --json` must give the same document apart from `file`, `file_bytes` and `pickle_protocol`.
Damaged JSON gets an error naming the file and the byte offset.

usage: test_json_snapshots.py CLI DATA_DIR
"""
import gzip
import json
import os
import pickle
import sys
import tempfile

import cli_checks
from cli_checks import Checks


def run(cli, *args):
    return cli_checks.run(cli, *args, timeout=300)


def strip_encoding(doc):
    doc = json.loads(doc)
    for key in ("file", "file_bytes"):
        doc.pop(key, None)
    snap = doc.get("snapshot", {})
    snap.pop("pickle_protocol", None)
    return doc


def main() -> int:
    cli, data = sys.argv[1:3]
    check = Checks()

    with tempfile.TemporaryDirectory() as tmp:
        names = sorted(n for n in os.listdir(data) if n.endswith(".pickle"))
        check(len(names) >= 5, f"expected the snapshot pickles in {data}")
        for name in names:
            src = os.path.join(data, name)
            with open(src, "rb") as f:
                raw = f.read()
            obj = pickle.loads(raw)  # data only: dicts, lists, str, int, float, bool, None
            stem = os.path.join(tmp, name[: -len(".pickle")])
            forms = {stem + ".json": None, stem + ".json.gz": None, stem + ".pickle.gz": None}
            with open(stem + ".json", "w") as f:
                json.dump(obj, f)
            with gzip.open(stem + ".json.gz", "wt") as f:
                json.dump(obj, f, indent=1)
            with gzip.open(stem + ".pickle.gz", "wb") as f:
                f.write(raw)
            want = run(cli, "report", src)
            want_json = run(cli, "report", src, "--json", "-")
            check(want.returncode == 0 and want_json.returncode == 0, f"{name}: report failed: {want.stderr}")
            for path in forms:
                got = run(cli, "report", path)
                check(got.returncode == 0, f"{path}: exit {got.returncode}: {got.stderr}")
                lines = got.stdout.splitlines()
                check(lines[2:] == want.stdout.splitlines()[2:], f"{path}: report differs from the pickle's")
                encoding = "written as JSON" if ".json" in path else "pickle protocol"
                check(len(lines) > 1 and encoding in lines[1], f"{path}: header {lines[1:2]}")
                got_json = run(cli, "report", path, "--json", "-")
                check(got_json.returncode == 0, f"{path}: --json exit {got_json.returncode}")
                if got_json.returncode == 0:
                    check(
                        strip_encoding(got_json.stdout) == strip_encoding(want_json.stdout),
                        f"{path}: report --json differs from the pickle's",
                    )
                    proto = json.loads(got_json.stdout).get("snapshot", {}).get("pickle_protocol", "absent")
                    if ".json" in path:
                        check(proto is None, f"{path}: pickle_protocol {proto!r} for a JSON snapshot")

        bad = os.path.join(tmp, "cut.json")
        with open(bad, "w") as f:
            f.write('{"segments": [], "device_traces": [[{"action": "alloc", "addr": 1, "size": ')
        p = run(cli, "report", bad)
        check(p.returncode != 0, "cut JSON: exit 0")
        check(bad in p.stderr and "not valid JSON at byte" in p.stderr, f"cut JSON: stderr {p.stderr!r}")
        deep = os.path.join(tmp, "deep.json")
        with open(deep, "w") as f:
            f.write('{"segments": ' + "[" * 200 + "]" * 200 + "}")
        p = run(cli, "report", deep)
        check(p.returncode != 0 and deep in p.stderr and "nested deeper" in p.stderr, f"deep: {p.stderr!r}")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
