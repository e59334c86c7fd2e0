#!/bin/sh
# Builds the `fuzz` preset if needed and runs the pickle/snapshot fuzzer for N seconds (default 60), seeded
# with the real snapshots in tests/data and the hostile pickles of tests/data/tools/make_hostile_pickles.py.
#   usage: tests/fuzz/run_pickle.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_pickle pickle "${1:-60}"
[ $# -gt 0 ] && shift
for f in "$root"/tests/data/*.pickle; do
  cp -u "$f" "$seeds/"
done
python3 "$root/tests/data/tools/make_hostile_pickles.py" "$seeds/hostile" "$root/tests/data/torch_snapshot_cs336_small_peak.pickle" >/dev/null
exec "$build/tests/fuzz/fuzz_pickle" -max_total_time="$seconds" -max_len=3000000 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds" "$seeds/hostile"
