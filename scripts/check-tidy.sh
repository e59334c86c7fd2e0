#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) on the C++ source files changed since the merge base with
# main, or on the files given. Needs build/ci/compile_commands.json (cmake --preset ci). The whole tree takes
# about half an hour of CPU on this project, so CI checks what a change touches; run `scripts/check-tidy.sh
# --all` to check everything.
# Usage: scripts/check-tidy.sh [--all | FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/ci}
command -v clang-tidy >/dev/null || { echo "[tidy] clang-tidy is not installed (packaging/install-deps.sh)" >&2; exit 1; }
[ -f "$BUILD/compile_commands.json" ] || { echo "[tidy] no $BUILD/compile_commands.json: run cmake --preset ci" >&2; exit 1; }
if [ "${1:-}" = "--all" ]; then
  mapfile -t files < <(git ls-files -- '*.cpp')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  base=$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD)
  mapfile -t files < <( (git diff --name-only --diff-filter=d "$base" -- '*.cpp'; git ls-files --others --exclude-standard -- '*.cpp') | sort -u)
fi
# Only files the build compiles (the fuzz targets and GPU-only sources are not in compile_commands.json).
checked=()
for f in "${files[@]}"; do
  grep -q "\"file\": \"$PWD/$f\"" "$BUILD/compile_commands.json" && checked+=("$f")
done
if [ ${#checked[@]} -eq 0 ]; then
  echo "[tidy] no compiled C++ file changed since main"
  exit 0
fi
echo "[tidy] ${#checked[@]} file(s)"
printf '%s\0' "${checked[@]}" | xargs -0 -n 4 -P "$(nproc)" clang-tidy -p "$BUILD" --quiet 2>/dev/null
echo "[tidy] no findings"
