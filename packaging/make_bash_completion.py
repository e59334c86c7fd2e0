#!/usr/bin/env python3
"""Writes the bash completion for oomscope-cli from the built program's own help text.

Run at build time by packaging/CMakeLists.txt. The commands come from `oomscope-cli --help` (the command
registry's list), each command's options from `oomscope-cli help COMMAND`, and, for a command that lists
names of its own (bench), each name's options from `oomscope-cli COMMAND NAME --help`. So the completion
always matches the program it was built with; tests/packaging/test_completion.sh checks it in a real bash.

An option followed by one space and an upper-case placeholder (`--top N`) or alternatives
(`--preset original|corrected`) takes a value: alternatives in lower case are offered, FILE offers file
names, other placeholders offer nothing. Positional arguments in upper case (CAPTURE, FILES) offer file names.

usage: make_bash_completion.py --program PATH --out FILE
"""

import argparse
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?: ([A-Za-z0-9_|.-]+))?")


def run(program, *args, must=True):
    done = subprocess.run([program, *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or not done.stdout.strip():
        if must:
            sys.exit(f"make_bash_completion: `{os.path.basename(program)} {' '.join(args)}` failed "
                     f"(exit {done.returncode}): {done.stderr.strip()}")
        return None
    return done.stdout


def listed_names(text, heading):
    """Names listed as '  NAME  synopsis' (a tab or two spaces between) under a line 'heading:'."""
    names, inside = [], False
    for line in text.split("\n"):
        if line.strip() == heading + ":":
            inside = True
        elif inside and re.match(r"  \S+(\t|  )", line):
            names.append(line.split()[0])
        elif inside and line.strip() == "" and names:
            break
    return names


def is_placeholder(token):
    return all(re.fullmatch(r"[A-Z][A-Z0-9_]*|-", alt) for alt in token.split("|"))


def parse_options(usage):
    """{option: value spec} where the spec is None (a flag), or a list of words to offer, '@file' among them
    for file names."""
    options = {}
    for match in OPTION.finditer(usage):
        name, value = match.group(1), match.group(2)
        spec = None
        if value and ("|" in value or is_placeholder(value)):
            spec = []
            for alt in value.split("|"):
                if alt in ("FILE", "FILES", "DIR"):
                    spec.append("@file")
                elif not is_placeholder(alt):
                    spec.append(alt)
        if name not in options or (options[name] is None and spec is not None):
            options[name] = spec
    options.setdefault("--help", None)
    return options


def usage_line(usage):
    lines = usage.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("usage:"):
            # a usage line may continue on indented lines
            text = line
            for more in lines[i + 1:]:
                if not more.startswith(" ") or not more.strip():
                    break
                text += " " + more.strip()
            return text
    return ""


def takes_files(usage, command_words):
    line = usage_line(usage)
    line = re.sub(r"\[--[^\]]*\]", " ", line)  # option groups
    words = line.split()[1 + command_words:]   # after 'usage: oomscope-cli CMD [NAME]'
    return any(re.fullmatch(r"\[?[A-Z]+(\.\.\.)?\]?", w) and w.strip("[].") not in ("OPTIONS", "ARGS", "NAME")
               for w in words)


def shell_words(words):
    return " ".join(words)


def case_arms(options, files, indent):
    pad = " " * indent
    out = [f'{pad}case "$prev" in'] if any(spec is not None for spec in options.values()) else []
    for name, spec in sorted(options.items()):
        if spec is None:
            continue
        words = [w for w in spec if w != "@file"]
        parts = []
        if words:
            parts.append(f'$(compgen -W "{shell_words(words)}" -- "$cur")')
        if "@file" in spec:
            parts.append('$(compgen -f -- "$cur")')
            out.append(f'{pad}  {name}) compopt -o filenames; COMPREPLY=( {" ".join(parts)} ); return ;;')
        else:
            out.append(f'{pad}  {name}) COMPREPLY=({" " + " ".join(parts) + " " if parts else ""}); return ;;')
    if out:
        out.append(f"{pad}esac")
    out.append(f'{pad}if [[ "$cur" == -* ]]; then')
    out.append(f'{pad}  COMPREPLY=( $(compgen -W "{shell_words(sorted(options))}" -- "$cur") ); return')
    out.append(f"{pad}fi")
    if files:
        out.append(f'{pad}compopt -o filenames; COMPREPLY=( $(compgen -f -- "$cur") )')
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    top = run(args.program, "--help")
    version = run(args.program, "--version").split("\n")[0]
    commands = listed_names(top, "commands")
    if not commands:
        sys.exit("make_bash_completion: no 'commands:' list in oomscope-cli --help")

    lines = [
        "# bash completion for oomscope-cli. Generated at build time by packaging/make_bash_completion.py",
        f"# from the help text of {version}: do not edit.",
        "_oomscope_cli() {",
        '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "  COMPREPLY=()",
        '  if [ "$COMP_CWORD" -eq 1 ]; then',
        f'    COMPREPLY=( $(compgen -W "{shell_words(commands + ["help", "--help", "--version"])}" -- "$cur") )',
        "    return",
        "  fi",
        '  case "${COMP_WORDS[1]}" in',
        "    help)",
        f'      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=( $(compgen -W "{shell_words(commands)}" -- "$cur") )',
        "      return ;;",
    ]
    for command in commands:
        usage = run(args.program, "help", command)
        names = listed_names(usage, "benchmarks") or listed_names(usage, "names")
        lines.append(f"    {command})")
        if names:
            lines += ['      if [ "$COMP_CWORD" -eq 2 ]; then',
                      f'        COMPREPLY=( $(compgen -W "{shell_words(names + ["--help"])}" -- "$cur") ); return',
                      "      fi",
                      '      case "${COMP_WORDS[2]}" in']
            for name in names:
                sub = run(args.program, command, name, "--help", must=False) or ""
                lines.append(f"        {name})")
                lines += case_arms(parse_options(sub), takes_files(sub, 2), 10)
                lines.append("          ;;")
            lines.append("      esac")
        else:
            lines += case_arms(parse_options(usage), takes_files(usage, 1), 6)
        lines.append("      ;;")
    lines += ["  esac", "}", "complete -F _oomscope_cli oomscope-cli", ""]

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        out.write("\n".join(lines))


if __name__ == "__main__":
    main()
