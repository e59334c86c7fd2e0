#!/bin/sh
# Builds the `fuzz` preset (clang, libFuzzer + ASan) if needed and runs the reader fuzzer for N seconds
# (default 60), seeded with the captures in tests/data. New corpus entries and crash files stay in
# build/fuzz/fuzz-corpus and build/fuzz/fuzz-artifacts.
#   usage: tests/fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_reader reader "${1:-60}"
[ $# -gt 0 ] && shift
# Seeds: every protobuf file in tests/data (captures, the damaged one, the bare HloProto).
for f in "$root"/tests/data/*.pb; do
  cp -u "$f" "$seeds/"
done
exec "$build/tests/fuzz/fuzz_reader" -max_total_time="$seconds" -max_len=1000000 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
