#!/bin/sh
# Builds the `fuzz` preset if needed and runs the log reader's fuzzer for N seconds (default 60), seeded with
# every log in tests/data/logs.
#   usage: tests/fuzz/run_log.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_log log "${1:-60}"
[ $# -gt 0 ] && shift
for f in "$root"/tests/data/logs/*.log; do
  cp -u "$f" "$seeds/"
done
exec "$build/tests/fuzz/fuzz_log" -max_total_time="$seconds" -max_len=300000 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
