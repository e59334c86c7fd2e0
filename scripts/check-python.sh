#!/usr/bin/env bash
# Lints and format-checks every tracked Python file (the live agent, the test and data tools, the packaging
# generators): flake8 with .flake8, then black --check with pyproject.toml (110 columns, as the C++ code).
# Called by scripts/test.sh and scripts/check.sh; a second or two for the whole tree.
# Fix a failure with `black FILE` (the format) and by hand (what flake8 names).
# Usage: scripts/check-python.sh [FILE...]     (default: every tracked *.py)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in flake8 black; do
  command -v "$tool" >/dev/null || { echo "[python] $tool is not installed (packaging/install-deps.sh)" >&2; exit 1; }
done
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.py')
fi
[ ${#files[@]} -gt 0 ] || { echo "[python] no Python files"; exit 0; }
status=0
flake8 "${files[@]}" || { echo "[python] flake8 found the problems above (.flake8)" >&2; status=1; }
if ! black --check --quiet "${files[@]}"; then
  black --check "${files[@]}" 2>&1 | grep '^would reformat' | sed 's/^/[python] /' >&2
  echo "[python] run: black FILE (pyproject.toml says how)" >&2
  status=1
fi
[ $status -eq 0 ] && echo "[python] ${#files[@]} files clean (flake8, black)"
exit $status
