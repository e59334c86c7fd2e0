#!/bin/sh
# Builds the `fuzz` preset if needed and runs the live protocol fuzzer for N seconds (default 60), seeded
# with protocol lines written here (every message type, a bad line, a split line).
#   usage: tests/fuzz/run_live.sh [SECONDS] [extra libFuzzer flags...]
set -eu
. "$(dirname "$0")/common.sh"
fuzz_setup fuzz_live_protocol live "${1:-60}"
[ $# -gt 0 ] && shift
printf '%s\n' '{"type":"hello","protocol":1,"pid":7,"host":"h","rank":0,"world_size":2,"backend":"mps","command":["a"]}' \
  '{"type":"sample","t":1,"step":2,"allocated":1086000000,"driver":43254000000,"recommended_max":25559000000}' > "$seeds/hello_sample"
printf '%s\n' '{"type":"event","t":3,"kind":"oom","message":"out of memory","path":"/tmp/x","step":6000}' \
  '{"type":"shapes","t":4,"distinct":9072,"last":[16,384]}' '{"type":"subscribe","interval_ms":50}' > "$seeds/event_shapes"
printf '%s' '{"type":"auth","token":"x"}
not json
{"type":"sample","t":1,"allocated":"12"}
{"type":"sample","t":1,"alloc' > "$seeds/bad_lines"
exec "$build/tests/fuzz/fuzz_live_protocol" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$corpus" "$seeds"
