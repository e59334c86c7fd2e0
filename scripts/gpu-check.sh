#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds and runs every test that needs one (the ones that skip with a
# reason elsewhere) and prints what it found, so that a GPU run is one command. Without a GPU it says so and
# exits 0. Usage: scripts/gpu-check.sh   (PRESET=ci by default, in build/PRESET or BUILD_DIR; BUILD_JOBS=2;
# NO_BUILD=1 runs what is already built)
#
# The tests that need a GPU (found with `grep -rn "GTEST_SKIP\|SKIP:" tests/` for skips that name a GPU,
# CUDA or NVML; add a new one here):
#   test_live  LiveDeviceStats.PresentOrSaidOnce            the agent's NVML / CUDA runtime device source
#   test_train BudgetAllocator.CudaBudgetIsTheCachingAllocatorsFraction   LibTorch's CUDA caching allocator
#                                                           (needs a LibTorch built with CUDA)
# and a real run: `oomscope-cli serve` samples the device, `oomscope-cli watch --json` reads it back.
# Exit status: 0 when every GPU test ran and passed (or there is no GPU), 1 when one failed, 2 when none
# of them could run on a machine that has a GPU (each skip is printed with its reason).
set -u
cd "$(dirname "$0")/.."
PRESET="${PRESET:-ci}"
BUILD="${BUILD_DIR:-build/$PRESET}"
JOBS="${BUILD_JOBS:-2}"
log() { printf '[gpu-check] %s\n' "$*"; }

if ! command -v nvidia-smi >/dev/null 2>&1; then
  log "no NVIDIA GPU here (nvidia-smi is not installed): nothing to run; the GPU tests skip on this machine"
  exit 0
fi
if ! gpus="$(nvidia-smi -L 2>&1)" || ! grep -q '^GPU ' <<<"$gpus"; then
  log "no NVIDIA GPU here (nvidia-smi -L: ${gpus:-no output}): nothing to run"
  exit 0
fi
log "found:"
sed 's/^/    /' <<<"$gpus"
nvidia-smi --query-gpu=driver_version,memory.total,memory.used --format=csv,noheader 2>/dev/null |
  sed 's/^/    driver, memory total, used: /'
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
  log "NVML: $(ldconfig -p | grep -m1 'libnvidia-ml.so.1' | sed 's/.*=> //')"
else
  log "NVML: libnvidia-ml.so.1 is not in the loader's cache (the agent's NVML source will say so)"
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then
  log "CUDA toolkit: $(/usr/local/cuda/bin/nvcc --version | tail -n 1)"
else
  log "CUDA toolkit: none at /usr/local/cuda (the C++ agent then reads the device through NVML only)"
fi
for py in /usr/bin/python3 python3; do
  if command -v "$py" >/dev/null 2>&1 &&
    out="$("$py" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "available:", torch.cuda.is_available())' 2>/dev/null)"; then
    log "torch for $py: $out"
    break
  fi
done

if [ "${NO_BUILD:-0}" = 1 ]; then
  log "NO_BUILD=1: running what $BUILD holds"
else
  [ -f "$BUILD/CMakeCache.txt" ] || cmake --preset "$PRESET" >/dev/null || { log "ERROR: cmake --preset $PRESET failed"; exit 1; }
  targets=(test_live oomscope-cli)
  if cmake --build "$BUILD" --target help 2>/dev/null | grep -q '^test_train: '; then targets+=(test_train); fi
  log "building ${targets[*]} ($BUILD, -j$JOBS)"
  if ! cmake --build "$BUILD" --target "${targets[@]}" -j"$JOBS" >"$BUILD/gpu-check-build.log" 2>&1; then
    log "ERROR: the build failed; see $BUILD/gpu-check-build.log"
    tail -n 20 "$BUILD/gpu-check-build.log"
    exit 1
  fi
fi

passed=0 failed=0 skipped=0
run_gtest() {  # binary filter
  local bin out
  bin="$(find -L "$BUILD/tests" -maxdepth 3 -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1)"
  if [ -z "$bin" ]; then
    log "SKIPPED $2: $1 was not built (LibTorch not found?)"
    skipped=$((skipped + 1))
    return
  fi
  out="$("$bin" --gtest_filter="$2" 2>&1)"
  if grep -q '^\[  FAILED  \]' <<<"$out"; then
    log "FAILED  $2"
    sed 's/^/    /' <<<"$out" | tail -n 30
    failed=$((failed + 1))
  elif grep -q '^\[  SKIPPED \]' <<<"$out"; then
    log "SKIPPED $2: $(grep -m1 -B1 '^\[  SKIPPED \]' <<<"$out" | head -n 1 | sed 's/^.*Skipped *//')"
    skipped=$((skipped + 1))
  elif grep -q '^\[  PASSED  \] 1 test' <<<"$out"; then
    log "passed  $2"
    passed=$((passed + 1))
  else
    log "FAILED  $2: no test ran (filter matched nothing?)"
    failed=$((failed + 1))
  fi
}
run_gtest test_live 'LiveDeviceStats.PresentOrSaidOnce'
run_gtest test_train 'BudgetAllocator.CudaBudgetIsTheCachingAllocatorsFraction'

# A real run: the C++ agent serving the device's figures, read back by watch.
cli="$BUILD/app/cli/oomscope-cli"
sock="$(mktemp -u /tmp/oomscope-gpu-check-XXXXXX.sock)"
"$cli" serve --unix "$sock" --duration 10 >"$BUILD/gpu-check-serve.log" 2>&1 &
serve=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
lines="$("$cli" watch "unix:$sock" --json --duration 2 2>&1)"
kill "$serve" 2>/dev/null
wait "$serve" 2>/dev/null
if grep -q '"device_used"' <<<"$lines" && grep -q '"total_bytes":[1-9]' <<<"$lines"; then
  log "passed  oomscope-cli serve + watch: the device's total and device_used arrive"
  grep -m1 '"type":"sample"' <<<"$lines" | sed 's/^/    /'
  passed=$((passed + 1))
else
  log "FAILED  oomscope-cli serve + watch: no device_used / total_bytes in the samples"
  sed 's/^/    /' "$BUILD/gpu-check-serve.log" | tail -n 5
  head -n 5 <<<"$lines" | sed 's/^/    /'
  failed=$((failed + 1))
fi

log "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -gt 0 ] && exit 1
[ "$passed" -eq 0 ] && exit 2
exit 0
