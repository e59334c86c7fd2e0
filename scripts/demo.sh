#!/usr/bin/env bash
# Builds oomscope and opens the GUI on the bundled real capture (resources/demo/).
# On a fresh Debian 12 machine it first installs what it needs (packaging/install-deps.sh, root or sudo).
# It builds the two programs in build/ci, the build scripts/test.sh makes and tests: after either command the
# other has little left to compile. The compiler's output goes to build/ci/demo-build.log (shown only when the
# build fails). With no display it says so and prints the diagnosis part of `oomscope-cli report` on the same
# capture instead: what oomscope is for.
set -euo pipefail
cd "$(dirname "$0")/.."
DEMO="resources/demo/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb"
BUILD=build/ci
LOG=$BUILD/demo-build.log

packaging/install-deps.sh
echo "[demo] building oomscope and oomscope-cli (preset ci, shared with scripts/test.sh; the first build of a"
echo "[demo] fresh clone takes a while, later ones only what changed); the compiler's output: $LOG"
cmake --preset ci >/dev/null
mkdir -p "$BUILD"
start=$(date +%s)
if ! cmake --build "$BUILD" --target oomscope oomscope-cli >"$LOG" 2>&1; then
  tail -n 40 "$LOG" >&2
  echo "[demo] the build failed; the whole output is in $LOG" >&2
  exit 1
fi
echo "[demo] built in $(( $(date +%s) - start )) s"

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
  echo "[demo] no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the GUI cannot open a window here."
  echo "[demo] Run this script from a desktop session (or under 'xvfb-run') to see the GUI. Meanwhile, what"
  echo "[demo] oomscope says about the bundled capture (the diagnosis part of its report):"
  echo
  # The capture's heading (file, host, analysed module), then DIAGNOSIS and LIMITS.
  "$BUILD/app/cli/oomscope-cli" report "$DEMO" |
    awk '/^== / || /^host / || /^analysed module:/ {print; next} /^DIAGNOSIS/ {on = 1; print ""} on'
  echo
  echo "[demo] the whole report (plan, runtime, diagnosis): $BUILD/app/cli/oomscope-cli report $DEMO"
  exit 0
fi
exec "$BUILD/app/gui/oomscope" "$DEMO"
