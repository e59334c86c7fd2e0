#!/bin/sh
# Builds the `fuzz` preset if needed and runs the Prometheus API answer fuzzer for N seconds (default 60),
# seeded with small answers of the three shapes the client reads (query with vector and matrix results,
# query_range, series) and an error answer, written here.
#   usage: tests/fuzz/run_prom_answer.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_prom_answer prom_answer "${1:-60}"
[ $# -gt 0 ] && shift
printf '%s' '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"oomscope_allocated_bytes","instance":"h:1","rank":"0"},"value":[1700000000.5,"123"]}]}}' >"$seeds/vector.json"
printf '%s' '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"job":"train","rank":"1"},"values":[[1700000000,"1"],[1700000001.25,"2e9"],[1700000002,"NaN"]]}]}}' >"$seeds/matrix.json"
printf '%s' '{"status":"success","data":[{"__name__":"up","instance":"h:2","job":"train"},{"__name__":"DCGM_FI_DEV_FB_USED","Hostname":"h","gpu":"0"}]}' >"$seeds/series.json"
printf '%s' '{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error"}' >"$seeds/error.json"
exec "$build/tests/fuzz/fuzz_prom_answer" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
