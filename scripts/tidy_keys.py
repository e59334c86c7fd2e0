#!/usr/bin/python3
"""Prints a key for each C++ source file given that the build compiles, one "KEY FILE" line each, for the
cache of clean clang-tidy results of scripts/check-tidy.sh. A key changes whenever the result of clang-tidy
on the file could: it hashes the clang-tidy version, .clang-tidy, the file's compile command, the file and
every header of the source tree it includes (from the build's dependency log, `ninja -t deps`). A file
the build has not compiled yet has no dependency log: it gets the key "-" and is always checked. Files
that the build does not compile (fuzz targets, GPU-only sources) are left out.

Usage: tidy_keys.py BUILD_DIR FILE...     (run from the source tree's root; FILE relative to it)
"""

import hashlib
import json
import os
import subprocess
import sys


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Hasher:
    def __init__(self, root):
        self.root = root
        self.memo = {}

    def file(self, path):
        if path not in self.memo:
            try:
                with open(path, "rb") as f:
                    self.memo[path] = sha(f.read())
            except OSError:
                self.memo[path] = "missing"
        return self.memo[path]


def dependency_log(build):
    """{absolute source path: [absolute paths of the files it includes, inside the source tree or not]}"""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if not line.startswith(" "):
            current = [] if "(VALID)" in line else None  # a stale entry says nothing about the file now
            continue
        if current is None or not line.strip():
            continue
        path = os.path.normpath(os.path.join(build, line.strip()))
        if not current:  # the first dependency is the source itself
            deps[os.path.abspath(path)] = current
        current.append(os.path.abspath(path))
    return deps


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build, files = sys.argv[1], sys.argv[2:]
    root = os.path.abspath(os.getcwd())
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        commands = {os.path.abspath(e["file"]): e["command"] for e in json.load(f)}
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    hasher = Hasher(root)
    common = sha((version + "\0" + hasher.file(os.path.join(root, ".clang-tidy"))).encode())
    deps = dependency_log(build)
    for name in files:
        path = os.path.abspath(name)
        if path not in commands:
            continue
        if path not in deps:
            print("-", name)
            continue
        # The command names the checkout's folder: another clone of the same tree gets the same key.
        parts = [common, commands[path].replace(root, ".")]
        for dep in deps[path]:
            if dep.startswith(root + os.sep):  # system headers are left out: they change with their packages
                parts.append(os.path.relpath(dep, root) + " " + hasher.file(dep))
        print(sha("\n".join(parts).encode()), name)


if __name__ == "__main__":
    main()
