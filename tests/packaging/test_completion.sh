#!/usr/bin/env bash
# The bash completion offers what oomscope-cli defines: the commands of `oomscope-cli --help`, each command's
# (and benchmark's) options as defined with CLI11 (`oomscope-cli options-json`), each of them also shown by
# its help, choices after an option with alternatives, file names where a file goes. Run in a real bash
# against the generated script.
# usage: test_completion.sh PROGRAM COMPLETION_FILE
set -uo pipefail
PROGRAM=$1
COMPLETION=$2
failures=0

# complete WORD...: what the completion offers for the last word, sorted, one line.
complete_line() {
  bash -c '
    compopt() { :; }   # only valid inside a real completion; the offers are what matters here
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
    _oomscope_cli
    printf "%s\n" "${COMPREPLY[@]}" | sed "/^$/d" | sort -u | tr "\n" " "' _ "$COMPLETION" oomscope-cli "$@"
}
sorted() { printf '%s\n' "$@" | sed '/^$/d' | sort -u | tr '\n' ' '; }
expect() {  # expect DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}

# The definitions (CLI11, printed by `oomscope-cli options-json`): per command (and benchmark) its long options.
spec=$("$PROGRAM" options-json)
defined() {  # defined COMMAND [BENCHMARK]: the long options defined for it, one line
  python3 -c '
import json, sys
node = json.loads(sys.stdin.read())
for name in sys.argv[1:]:
    node = next(s for s in node["subcommands"] if s["name"] == name)
print(" ".join(sorted(n for o in node["options"] for n in o["names"] if n.startswith("--"))))' "$@" <<<"$spec"
}

commands=$("$PROGRAM" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "FAIL: no commands in $PROGRAM --help"; exit 1; }

expect "first word: the commands of --help, --help, --version" \
  "$(sorted $commands --help --version)" "$(complete_line "")"
expect "help COMMAND: the commands" "$(sorted ${commands/help/})" "$(complete_line help "")"

# Every option the completion offers is defined, every defined option is offered and shown by the help.
check_options() {  # check_options HELP_TEXT WORDS...
  local usage=$1; shift
  local options
  options=$(defined "$@")
  expect "$* --: the defined options" "$(sorted $options)" "$(complete_line "$@" --)"
  for option in $options; do
    grep -q -- "$option" <<<"$usage" || { echo "FAIL: $* --help does not show $option"; failures=$((failures + 1)); }
  done
}
for command in $commands; do
  [ "$command" = help ] && continue
  usage=$("$PROGRAM" help "$command")
  benchmarks=$(awk '/^benchmarks:/ {on=1; next} on && /^  [a-z]/ {print $1}' <<<"$usage")
  if [ -n "$benchmarks" ]; then
    expect "$command: its names" "$(sorted $benchmarks --help)" "$(complete_line "$command" "")"
    for bench in $benchmarks; do
      check_options "$("$PROGRAM" help "$command" "$bench")" "$command" "$bench"
    done
    continue
  fi
  check_options "$usage" "$command"
done

expect "simulate --preset: its alternatives" "corrected original " "$(complete_line simulate --preset "")"
expect "report --top: a number, nothing offered" "" "$(complete_line report --top "")"
tmp=$(mktemp -d)
touch "$tmp/run.xplane.pb"
expect "info: file names" "$tmp/run.xplane.pb " "$(complete_line info "$tmp/ru")"
expect "report --json: file names" "$tmp/run.xplane.pb " "$(complete_line report --json "$tmp/ru")"
rm -rf "$tmp"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
