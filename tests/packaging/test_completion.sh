#!/usr/bin/env bash
# The bash completion offers what oomscope-cli says it has: the commands of `oomscope-cli --help`, each
# command's options from `oomscope-cli help COMMAND`, the benchmarks of `help bench`, choices after an option
# with alternatives, file names where a file goes. Run in a real bash against the generated script.
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

commands=$("$PROGRAM" --help | awk '/^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "FAIL: no commands in $PROGRAM --help"; exit 1; }

expect "first word: the commands of --help, help, --help, --version" \
  "$(sorted $commands help --help --version)" "$(complete_line "")"
expect "help COMMAND: the commands" "$(sorted $commands)" "$(complete_line help "")"

for command in $commands; do
  usage=$("$PROGRAM" help "$command")
  benchmarks=$(awk '/^benchmarks:/ {on=1; next} on && /^  [a-z]/ {print $1}' <<<"$usage")
  if [ -n "$benchmarks" ]; then
    expect "$command: its names" "$(sorted $benchmarks --help)" "$(complete_line "$command" "")"
    continue
  fi
  options=$(grep -o -E -- '(^|[^[:alnum:]-])--[a-z][a-z0-9-]*' <<<"$usage" | sed 's/^[^-]*//')
  expect "$command --: the options of help $command" "$(sorted $options --help)" "$(complete_line "$command" --)"
done

expect "simulate --preset: its alternatives" "corrected original " "$(complete_line simulate --preset "")"
expect "report --top: a number, nothing offered" "" "$(complete_line report --top "")"
tmp=$(mktemp -d)
touch "$tmp/run.xplane.pb"
expect "info: file names" "$tmp/run.xplane.pb " "$(complete_line info "$tmp/ru")"
expect "report --json: file names" "$tmp/run.xplane.pb " "$(complete_line report --json "$tmp/ru")"
rm -rf "$tmp"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
