#!/usr/bin/env python3
"""The man page says what the program says: every line of `PROGRAM --help`, `PROGRAM --version` and (with
--subcommands) `PROGRAM help COMMAND` appears, in order, in the page as groff renders it.

usage: test_manpage.py PROGRAM NAME PAGE.1.gz [--subcommands]      (exit 77: skipped, no groff)
"""

import gzip
import os
import re
import shutil
import subprocess
import sys


def run(program, name, *args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [name, *args], executable=program, capture_output=True, text=True, env=env, timeout=60, check=True
    ).stdout


def normal(text):
    # groff's UTF-8 output may turn quotes and hyphens typographic; compare words, not glyphs.
    for fancy, plain in (("\u2018", "`"), ("\u2019", "'"), ("\u2010", "-"), ("\u2212", "-"), ("\u00b4", "'")):
        text = text.replace(fancy, plain)
    return " ".join(text.split())


def main():
    program, name, page = sys.argv[1:4]
    subcommands = "--subcommands" in sys.argv[4:]
    if not shutil.which("groff"):
        print("SKIP: groff is not installed (Debian package groff-base), so the page cannot be rendered")
        return 77
    with gzip.open(page, "rt") as f:
        roff = f.read()
    rendered = subprocess.run(
        ["groff", "-man", "-Tutf8", "-P-cbou", "-rLL=250n"],
        input=roff,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    page_text = normal(rendered)

    texts = {
        f"{name} --help": run(program, name, "--help"),
        f"{name} --version": run(program, name, "--version"),
    }
    if subcommands:
        listing = texts[f"{name} --help"].split("\ncommands:\n", 1)[-1].split("\n\n", 1)[0]
        commands = re.findall(r"^  (\S+)(?:\t|  )", listing, re.M)
        if not commands:
            print(f"FAIL: no commands listed in {name} --help")
            return 1
        for command in commands:
            texts[f"{name} help {command}"] = run(program, name, "help", command)
            if f".SS {command}" not in roff:
                print(f"FAIL: the page has no section for the command {command}")
                return 1
    failed = False
    for what, text in texts.items():
        if normal(text) not in page_text:
            lines = [line for line in text.split("\n") if line.strip() and normal(line) not in page_text]
            print(f"FAIL: `{what}` is not in the page as printed; first line missing: {lines[:1]}")
            failed = True
        else:
            print(f"ok: `{what}` ({len(text.splitlines())} lines) is in the page")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
