"""Compiles oomscope's core/proto/*.proto into Python modules for the independent scripts.

oomscope's schemas declare text fields as `bytes` (so that invalid UTF-8 in a name never fails a C++
parse). The scripts want names as str, so the copy compiled here declares them `string` again; the two
genuine byte fields (XStat.bytes_value, XEventMetadata.metadata) stay bytes.
"""
import os
import re
import subprocess
import sys

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "core", "proto")
KEEP_BYTES = {"bytes_value", "metadata"}


def compile_protos(out_dir, names=("xplane.proto", "hlo.proto")):
    """Writes <name>_pb2.py for each proto into out_dir and puts out_dir on sys.path."""
    for name in names:
        with open(os.path.join(PROTO_DIR, name), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(
            r"\b(repeated )?bytes (\w+) =",
            lambda m: m.group(0) if m.group(2) in KEEP_BYTES else f"{m.group(1) or ''}string {m.group(2)} =",
            text,
        )
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(text)
    subprocess.run(["protoc", "-I", out_dir, "--python_out", out_dir, *names], check=True, cwd=out_dir)
    sys.path.insert(0, out_dir)
