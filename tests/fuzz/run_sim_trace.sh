#!/bin/sh
# Builds the `fuzz` preset if needed and runs the simulator trace reader fuzzer for N seconds (default 60),
# seeded with the trainer's trace in tests/data/sim and with simulator traces written by oomscope-cli
# (when a build of it is found: build/ci or build/dev), small ones so that mutations reach every field.
#   usage: tests/fuzz/run_sim_trace.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_sim_trace sim_trace "${1:-60}"
[ $# -gt 0 ] && shift
cp -u "$root"/tests/data/sim/*.jsonl "$seeds/"
for cli in "$root/build/ci/app/cli/oomscope-cli" "$root/build/dev/app/cli/oomscope-cli"; do
  [ -x "$cli" ] || continue
  "$cli" simulate --scenes 3 --batch 2 --budget 2GiB --trace "$seeds/sim_original.jsonl" >/dev/null || true
  "$cli" simulate --preset corrected --scenes 4 --batch 4 --budget 1GiB --bug-scene 1 --catch everything \
    --trace "$seeds/sim_corrected_bug.jsonl" >/dev/null || true
  break
done
exec "$build/tests/fuzz/fuzz_sim_trace" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
