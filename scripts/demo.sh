#!/usr/bin/env bash
# Builds oomscope and opens the GUI on the bundled real capture (resources/demo/).
# On a fresh Debian 12 machine it first installs what it needs (packaging/install-deps.sh, root or sudo).
# With no display it says so and prints the CLI summary of the same capture instead.
set -euo pipefail
cd "$(dirname "$0")/.."
DEMO="resources/demo/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb"

packaging/install-deps.sh
echo "[demo] building (preset release)"
cmake --preset release >/dev/null
cmake --build --preset release --target oomscope oomscope-cli

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
  echo "[demo] no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the GUI cannot open a window here."
  echo "[demo] Run this script from a desktop session (or under 'xvfb-run') to see the GUI."
  echo "[demo] Meanwhile, the CLI summary of the bundled capture:"
  echo
  exec build/release/app/cli/oomscope-cli info "$DEMO"
fi
exec build/release/app/gui/oomscope "$DEMO"
