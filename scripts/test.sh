#!/usr/bin/env bash
# Builds oomscope and runs every test (core GoogleTest, CLI golden files, Qt model/screenshot tests).
# On a fresh Debian 12 machine it first installs what it needs (packaging/install-deps.sh, root or sudo).
# Usage: scripts/test.sh            (preset "ci": optimised, warnings as errors)
#        PRESET=dev-asan scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${PRESET:-ci}"

packaging/install-deps.sh
echo "[test] configuring (preset $PRESET)"
cmake --preset "$PRESET" >/dev/null
echo "[test] building"
cmake --build --preset "$PRESET"
echo "[test] running tests"
export QT_QPA_PLATFORM=offscreen
ctest --preset "$PRESET" -j "$(nproc)" --timeout 600
