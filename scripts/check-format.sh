#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted with .clang-format (clang-format --dry-run --Werror).
# Called by scripts/test.sh. Fix a failure with `git clang-format` (your staged lines) or `clang-format -i FILE`.
# Usage: scripts/check-format.sh [FILE...]     (default: every tracked *.cpp, *.h, *.hpp, *.cc)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "[format] clang-format is not installed (packaging/install-deps.sh)" >&2; exit 1; }
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cc')
fi
[ ${#files[@]} -gt 0 ] || { echo "[format] no C++ files"; exit 0; }
if printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P "$(nproc)" clang-format --dry-run --Werror 2>/tmp/check-format.$$; then
  rm -f /tmp/check-format.$$
  echo "[format] ${#files[@]} files formatted as .clang-format says"
else
  grep -E "^[^ ].*: error:" /tmp/check-format.$$ | cut -d: -f1 | sort -u | sed "s/^/[format] not formatted: /" >&2
  rm -f /tmp/check-format.$$
  echo "[format] run: clang-format -i FILE (or git clang-format for staged changes)" >&2
  exit 1
fi
