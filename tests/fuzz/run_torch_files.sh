#!/bin/sh
# Builds the `fuzz` preset if needed and runs the pprof / Kineto / HTA reader fuzzer for N seconds (default
# 60), seeded with the pprof profile in tests/data, the first bytes of the HTA timeline there (unzipped) and
# small hand-written Kineto and HTA files (the whole files are too big for mutations to reach their fields),
# among them Kineto traces with distributedInfo and ProfilerStep#N markers, with torch_files.dict (the keys
# and names the Kineto reader looks for).
#   usage: tests/fuzz/run_torch_files.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_torch_files torch_files "${1:-60}"
[ $# -gt 0 ] && shift
cp -u "$root"/tests/data/*.prof "$seeds/"
zcat "$root/tests/data/torch_memory_timeline_raw_hta.raw.gz" | head -c 4000 >"$seeds/hta_head.raw" || true
printf '%s' '[[-1, 1, 37888, 7], [1000, 1, 512, 2], [2000, 0, 512, 2], [3000, 1, 65536, 4]]' >"$seeds/hta_small.raw"
printf '%s' '{"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85000000000}],"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":512,"Total Allocated":512,"Total Reserved":2097152}},{"ph":"i","name":"[OutOfMemory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Bytes":1073741824,"Total Allocated":512,"Total Reserved":2097152}}]}' >"$seeds/kineto_small.json"
printf '%s' '{"distributedInfo":{"backend":"nccl","rank":3,"world_size":4},"baseTimeNanoseconds":1700000000000000000,"traceEvents":[{"ph":"X","name":"ProfilerStep#7","pid":1,"tid":1,"ts":5,"dur":10},{"ph":"X","name":"ProfilerStep#8","pid":1,"tid":1,"ts":15,"dur":10},{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":16,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":1024,"Total Allocated":1024,"Total Reserved":2097152}}]}' >"$seeds/kineto_rank_steps.json"
printf '%s' '{"distributedInfo":{"rank":"3","world_size":-4,"backend":7},"traceEvents":[{"ph":"X","name":"ProfilerStep#-1","ts":1},{"ph":"X","name":"ProfilerStep#999999999999","ts":2},{"ph":"X","name":"ProfilerStep#12a","ts":"3"}]}' >"$seeds/kineto_rank_steps_hostile.json"
printf '%s' '{"traceEvents":[{"ph":"X","name":"ProfilerStep#1","ts":1e308}],"distributedInfo":{"rank":9223372036854775807,"world_size":18446744073709551615},"distributedInfo":[]}' >"$seeds/kineto_rank_steps_edges.json"
exec "$build/tests/fuzz/fuzz_torch_files" -dict="$root/tests/fuzz/torch_files.dict" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
