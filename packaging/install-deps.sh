#!/usr/bin/env bash
# Installs every Debian 12 package oomscope needs to build, test and run.
# Idempotent: packages already present are left alone. Run as root or with sudo available.
# Usage: packaging/install-deps.sh [--quiet]
set -u

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache git
  # Qt 6.4 (Widgets, Test, Charts, Svg for chart export; Charts' CMake config needs the OpenGL dev package)
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
  # protobuf 3.21 + protoc
  libprotobuf-dev protobuf-compiler
  # gzip input (.xplane.pb.gz, .json.gz, .raw.gz, .prof): ISA-L inflates, zlib names damaged data and
  # writes recordings
  zlib1g-dev libisal-dev
  # JSON, command-line options (CLI11, header-only), tests
  nlohmann-json3-dev libcli11-dev libgtest-dev googletest
  # style checks in CI (scripts/check-format.sh, scripts/check-tidy.sh); clang for the fuzz preset
  clang clang-format clang-tidy
  # Python lint and format check (scripts/check-python.sh: .flake8, pyproject.toml)
  flake8 black
  # headless display for the GUI tests and screenshots; fonts so text renders
  xvfb xauth fonts-dejavu-core
  # LibTorch 1.13 (CPU) for core/train and oomscope-demo-trainer (optional at build time)
  libtorch-dev
  # torch 1.13 for Debian's Python (the same libtorch1.13): the Python agent's real torch tests
  # (tests/live/test_python_*.py; they skip without it)
  python3-torch
  # the agents' Prometheus /metrics and the Prometheus source (C++: cpp-httplib); tests and bench
  # (prometheus, promtool)
  libcpp-httplib-dev prometheus
  # the Python protobuf reader the benchmark compares against
  python3 python3-protobuf
  # Debian packages (CPack DEB: dpkg-shlibdeps, file) and their install test (packaging/test-deb.sh):
  # desktop file and MIME checks, the file association, man page rendering
  dpkg-dev file desktop-file-utils libxml2-utils xdg-utils libfile-mimeinfo-perl shared-mime-info groff-base
)

log() { printf '[install-deps] %s\n' "$*"; }

# The MCP test's client (tests/mcp: the official MCP TypeScript SDK, pinned by its package-lock.json),
# installed with the machine's Node.js and npm into tests/mcp/node_modules (git-ignored); without npm the
# test skips and says why.
mcp_test_deps() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/mcp"
  if ! command -v npm >/dev/null 2>&1; then
    log "npm not found: the MCP client test (tests/mcp) will skip"
    return 0
  fi
  if [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    log "tests/mcp: node modules already installed"
    return 0
  fi
  if (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/tmp/oomscope-npm-ci.log 2>&1); then
    log "tests/mcp: installed the MCP SDK client (npm ci)"
  else
    log "WARNING: npm ci in tests/mcp failed (see /tmp/oomscope-npm-ci.log); the MCP client test will skip"
  fi
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    log "ERROR: not root and sudo is not available; run this script as root."; exit 1; fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  log "all ${#PACKAGES[@]} packages already installed; nothing to do."
  mcp_test_deps
  exit 0
fi

log "installing ${#missing[@]} missing package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -q >/tmp/oomscope-apt-update.log 2>&1; then
  log "WARNING: apt-get update failed (see /tmp/oomscope-apt-update.log); trying to install from the current lists."
fi
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/oomscope-apt-install.log 2>&1; then
  log "ERROR: apt-get install failed. Last lines of /tmp/oomscope-apt-install.log:"
  tail -n 20 /tmp/oomscope-apt-install.log
  still=()
  for p in "${missing[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || still+=("$p")
  done
  log "still missing: ${still[*]}"
  exit 1
fi
log "done; installed: ${missing[*]}"
mcp_test_deps
