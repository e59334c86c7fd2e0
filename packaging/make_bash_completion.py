#!/usr/bin/env python3
"""Writes the bash completion for oomscope-cli from the program's own CLI11 definitions.

Run at build time by packaging/CMakeLists.txt. `oomscope-cli options-json` prints every command (and, for
bench, every benchmark) with its options and positionals as the program defines them (app/cli/registry.cpp),
so the completion always matches the program it was built with; tests/packaging/test_completion.sh checks
it in a real bash.

An option's value placeholder says what to offer: alternatives in lower case (`original|corrected`) are
offered as words, FILE (or a positional whose placeholder is FILE) offers file names, any other placeholder
(N, BYTES, NAME|ID) offers nothing. An option without a placeholder is a flag.

usage: make_bash_completion.py --program PATH --out FILE
"""

import argparse
import json
import os
import re
import subprocess
import sys


def run(program, *args):
    done = subprocess.run([program, *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or not done.stdout.strip():
        sys.exit(
            f"make_bash_completion: `{os.path.basename(program)} {' '.join(args)}` failed "
            f"(exit {done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


def is_placeholder(word):
    return bool(re.fullmatch(r"\[?[A-Z][A-Z0-9_,.]*\]?", word))


def value_words(value):
    """What to offer after an option with this placeholder: words, '@file' for file names."""
    words = []
    for alt in value.split("|"):
        if alt.strip("[]") == "FILE":
            words.append("@file")
        elif not is_placeholder(alt) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", alt):
            words.append(alt)
    return words


def option_specs(command):
    """{option name: None (a flag) or the list of words to offer}"""
    specs = {}
    for option in command["options"]:
        for name in option["names"]:
            if name.startswith("--"):
                specs[name] = value_words(option["value"]) if option["value"] else None
    return specs


def takes_files(command):
    return any(p["value"] == "FILE" for p in command["positionals"])


def case_arms(options, files, indent):
    pad = " " * indent
    out = [f'{pad}case "$prev" in'] if any(spec is not None for spec in options.values()) else []
    for name, spec in sorted(options.items()):
        if spec is None:
            continue
        words = [w for w in spec if w != "@file"]
        parts = []
        if words:
            parts.append(f'$(compgen -W "{" ".join(words)}" -- "$cur")')
        if "@file" in spec:
            parts.append('$(compgen -f -- "$cur")')
            out.append(f'{pad}  {name}) compopt -o filenames; COMPREPLY=( {" ".join(parts)} ); return ;;')
        else:
            out.append(
                f'{pad}  {name}) COMPREPLY=({" " + " ".join(parts) + " " if parts else ""}); return ;;'
            )
    if out:
        out.append(f"{pad}esac")
    out.append(f'{pad}if [[ "$cur" == -* ]]; then')
    out.append(f'{pad}  COMPREPLY=( $(compgen -W "{" ".join(sorted(options))}" -- "$cur") ); return')
    out.append(f"{pad}fi")
    if files:
        out.append(f'{pad}compopt -o filenames; COMPREPLY=( $(compgen -f -- "$cur") )')
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    tree = json.loads(run(args.program, "options-json"))
    version = run(args.program, "--version").split("\n")[0]
    commands = [c for c in tree["subcommands"] if c["name"] != "help"]
    names = [c["name"] for c in commands]
    if not names:
        sys.exit("make_bash_completion: `oomscope-cli options-json` lists no command")
    top = sorted({n for o in tree["options"] for n in o["names"] if n.startswith("--")})

    lines = [
        "# bash completion for oomscope-cli. Generated at build time by packaging/make_bash_completion.py",
        f"# from the option definitions of {version} (oomscope-cli options-json): do not edit.",
        "_oomscope_cli() {",
        '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "  COMPREPLY=()",
        '  if [ "$COMP_CWORD" -eq 1 ]; then',
        f'    COMPREPLY=( $(compgen -W "{" ".join(names + ["help"] + top)}" -- "$cur") )',
        "    return",
        "  fi",
        '  case "${COMP_WORDS[1]}" in',
        "    help)",
        f'      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=( $(compgen -W "{" ".join(names)}" -- "$cur") )',
        "      return ;;",
    ]
    for command in commands:
        lines.append(f"    {command['name']})")
        subs = command["subcommands"]
        if subs:
            sub_names = [s["name"] for s in subs]
            lines += [
                '      if [ "$COMP_CWORD" -eq 2 ]; then',
                f'        COMPREPLY=( $(compgen -W "{" ".join(sub_names + ["--help"])}" -- "$cur") ); return',
                "      fi",
                '      case "${COMP_WORDS[2]}" in',
            ]
            for sub in subs:
                lines.append(f"        {sub['name']})")
                lines += case_arms(option_specs(sub), takes_files(sub), 10)
                lines.append("          ;;")
            lines.append("      esac")
        else:
            lines += case_arms(option_specs(command), takes_files(command), 6)
        lines.append("      ;;")
    lines += ["  esac", "}", "complete -F _oomscope_cli oomscope-cli", ""]

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        out.write("\n".join(lines))


if __name__ == "__main__":
    main()
