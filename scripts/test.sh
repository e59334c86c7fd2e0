#!/usr/bin/env bash
# Builds oomscope and runs every test (core GoogleTest, CLI golden files, Qt model/screenshot tests), then the
# style checks and the sanitizer suites. On a fresh Debian 12 machine it first installs what it needs
# (packaging/install-deps.sh, root or sudo).
# Usage: scripts/test.sh                 (preset "ci": optimised, warnings as errors; then the checks below)
#        PRESET=dev-asan scripts/test.sh (one preset only, no extra suites)
#        SANITIZERS=0 scripts/test.sh    (skips the sanitizer suites: a quicker local run; CI runs them)
# After the ci suite: scripts/check-format.sh, scripts/check-tidy.sh (files changed since main; on main, by its
# last commits; and a rotating shard of the whole tree), scripts/check-python.sh (flake8, black), the dev-asan
# suite (ASan + UBSan: core tests and golden CLI cases) and the dev-tsan suite (ThreadSanitizer: the tests
# labelled "threads"). Their build presets build only the targets those suites need. Each step line says
# how long the step before it took; the last line gives the total (CONTRIBUTING.md: the CI time budget).
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${PRESET:-}"
SANITIZERS="${SANITIZERS:-1}"
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc)
last=$(date +%s)
step() {  # names the step starting now and says how long the previous one took
  local now
  now=$(date +%s)
  printf '[test] %s (%s, previous step %d s)\n' "$1" "$(date -u +%H:%M:%S)" $((now - last))
  last=$now
}

run_preset() {
  step "configuring (preset $1)"
  cmake --preset "$1" >/dev/null
  step "building (preset $1)"
  cmake --build --preset "$1"
  step "running tests (preset $1)"
  # One test more than there are cores: many of them spend their time waiting on a child process or a
  # socket (the live and Python tests), so the cores stay busy (on 2 cores: 325 s with -j2, 288 s with -j3).
  ctest --preset "$1" -j "$((jobs + 1))" --timeout 600
}

packaging/install-deps.sh
if [ -n "$PRESET" ]; then
  run_preset "$PRESET"
  exit 0
fi
start=$(date +%s)
run_preset ci
step "checking the format"
scripts/check-format.sh
step "clang-tidy on the files changed since main (on main: by its last 10 commits), and one shard of the tree"
# The changed files: on a branch, every .cpp file changed since main; on main (CI's clone), those of main's last
# 10 first-parent commits, at most 8 of them not in the result cache. Then one of TIDY_SHARDS (64) shares of
# every compiled file, the next share at each commit of main (the count of first-parent commits picks it), so
# that 64 commits of main check the whole tree even with a cold cache. Both fit CI's budget on 2 cores
# (CONTRIBUTING.md, "Style checks": about 8 files each, about a minute cold; seconds once cached).
scripts/check-tidy.sh
shards=${TIDY_SHARDS:-64}
scripts/check-tidy.sh --shard "$(($(git rev-list --count --first-parent HEAD) % shards))/$shards"
step "checking the Python files (flake8, black)"
scripts/check-python.sh
if [ "$SANITIZERS" != 0 ]; then
  run_preset dev-asan
  run_preset dev-tsan
fi
step "all passed in $(( $(date +%s) - start )) s"
