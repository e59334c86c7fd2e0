#!/bin/sh
# Builds the `fuzz` preset if needed and runs the pprof / Kineto / HTA reader fuzzer for N seconds (default
# 60), seeded with the pprof profile in tests/data, the first bytes of the HTA timeline there (unzipped) and
# small hand-written Kineto and HTA files (the whole files are too big for mutations to reach their fields).
#   usage: tests/fuzz/run_torch_files.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_torch_files torch_files "${1:-60}"
[ $# -gt 0 ] && shift
cp -u "$root"/tests/data/*.prof "$seeds/"
zcat "$root/tests/data/torch_memory_timeline_raw_hta.raw.gz" | head -c 4000 >"$seeds/hta_head.raw" || true
printf '%s' '[[-1, 1, 37888, 7], [1000, 1, 512, 2], [2000, 0, 512, 2], [3000, 1, 65536, 4]]' >"$seeds/hta_small.raw"
printf '%s' '{"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85000000000}],"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":512,"Total Allocated":512,"Total Reserved":2097152}},{"ph":"i","name":"[OutOfMemory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Bytes":1073741824,"Total Allocated":512,"Total Reserved":2097152}}]}' >"$seeds/kineto_small.json"
exec "$build/tests/fuzz/fuzz_torch_files" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
