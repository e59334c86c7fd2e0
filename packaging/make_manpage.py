#!/usr/bin/env python3
"""Writes a man page (gzipped roff) for a built oomscope program from its own --help and --version output.

Run at build time by packaging/CMakeLists.txt, so the man page and --help are the same text and can never
disagree. With --subcommands (oomscope-cli), every command listed under "commands:" in --help gets a section
holding the output of `PROGRAM help COMMAND`.

usage: make_manpage.py --program PATH --name NAME [--subcommands] [--see-also NAME...] --out FILE.1.gz
"""

import argparse
import gzip
import os
import re
import subprocess
import sys


def run(program, name, *args):
    """The program's output, run under its installed name (Qt's help prints argv[0] in its usage line)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", COLUMNS="100")
    done = subprocess.run(
        [name, *args], executable=program, capture_output=True, text=True, env=env, timeout=60
    )
    if done.returncode != 0:
        sys.exit(
            f"make_manpage: `{os.path.basename(program)} {' '.join(args)}` exited with "
            f"{done.returncode}: {done.stderr.strip()}"
        )
    if not done.stdout.strip():
        sys.exit(f"make_manpage: `{os.path.basename(program)} {' '.join(args)}` printed nothing")
    return done.stdout


def escape(line):
    """One line of program output as roff text shown verbatim."""
    line = line.replace("\\", "\\e").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def verbatim(text):
    # Tabs expanded as a terminal shows them (stops every 8 columns): groff's stops are elsewhere.
    return [".nf"] + [escape(line.expandtabs(8)) for line in text.rstrip("\n").split("\n")] + [".fi"]


def summary(name, help_text):
    """The one-line description: 'NAME: text' on the first line (oomscope-cli) or the line after
    'Usage:' (Qt's QCommandLineParser, oomscope)."""
    lines = [line.strip() for line in help_text.split("\n")]
    if lines[0].startswith(name + ":"):
        text = lines[0][len(name) + 1 :].strip()
    elif lines[0].startswith("Usage:") and len(lines) > 1 and lines[1]:
        text = lines[1]
    else:
        sys.exit(f"make_manpage: cannot find the one-line description in {name} --help")
    return text.rstrip(".")


def usage_lines(help_text):
    return [line.strip() for line in help_text.split("\n") if re.match(r"\s*usage:", line, re.I)]


def commands(help_text):
    """The command names listed under 'commands:' in oomscope-cli --help ('  NAME  synopsis')."""
    names, inside = [], False
    for line in help_text.split("\n"):
        if line.strip() == "commands:":
            inside = True
        elif inside and re.match(r"  \S+(\t|  )", line):
            names.append(line.split()[0])
        elif inside and line.strip() == "":
            if names:
                break
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--subcommands", action="store_true")
    parser.add_argument("--see-also", nargs="*", default=[])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    help_text = run(args.program, args.name, "--help")
    version_text = run(args.program, args.name, "--version")
    version = version_text.split("\n")[0].split()[-1]

    page = [
        f'.TH {args.name.upper()} 1 "" "oomscope {version}" "User Commands"',
        ".SH NAME",
        f"{args.name} \\- {escape(summary(args.name, help_text))}",
        ".SH SYNOPSIS",
    ]
    for usage in usage_lines(help_text):
        page += [escape(re.sub(r"(?i)^usage:\s*", "", usage)), ".br"]
    page += [".SH DESCRIPTION", f"The output of \\fB{escape(args.name)} \\-\\-help\\fR:", ".PP"] + verbatim(
        help_text
    )
    if args.subcommands:
        names = commands(help_text)
        if not names:
            sys.exit(f"make_manpage: no 'commands:' list in {args.name} --help")
        page += [
            ".SH COMMANDS",
            f"The output of \\fB{escape(args.name)} help\\fR \\fICOMMAND\\fR for each command.",
        ]
        for name in names:
            page += [f".SS {escape(name)}"] + verbatim(run(args.program, args.name, "help", name))
    page += [".SH VERSION", f"The output of \\fB{escape(args.name)} \\-\\-version\\fR for this build:", ".PP"]
    page += verbatim(version_text)
    if args.see_also:
        page += [".SH SEE ALSO", ", ".join(f"\\fB{escape(n)}\\fR(1)" for n in args.see_also)]

    data = ("\n".join(page) + "\n").encode()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as raw:
        # mtime 0 and no file name inside: the same text gives the same bytes (reproducible packages).
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
            out.write(data)


if __name__ == "__main__":
    main()
