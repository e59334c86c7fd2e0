#!/bin/sh
# Builds the `fuzz` preset if needed and runs the report fuzzer (reader + analysis + text and JSON output)
# for N seconds (default 60), seeded with the smaller captures in tests/data (the analysis of a large one
# takes too long per input for fuzzing to go anywhere).
#   usage: tests/fuzz/run_report.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_report report "${1:-60}"
[ $# -gt 0 ] && shift
for f in "$root"/tests/data/*.pb; do
  [ "$(stat -c %s "$f")" -le 300000 ] && cp -u "$f" "$seeds/"
done
exec "$build/tests/fuzz/fuzz_report" -max_total_time="$seconds" -max_len=400000 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
