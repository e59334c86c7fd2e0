#!/usr/bin/env bash
# The checks to run before a commit, on what you changed: clang-format on the changed C++ files, clang-tidy on
# the changed .cpp files (with the cache of clean results of scripts/check-tidy.sh, so a file checked before
# and unchanged costs nothing) and flake8 + black on the changed Python files. A few seconds for a change of
# a file or two (clang-tidy takes about 5 CPU-seconds a file); CI runs the same checks (scripts/test.sh).
# "Changed" means different from BASE (default HEAD: staged and unstaged changes) or untracked.
# Usage: scripts/check.sh [BASE]          e.g. scripts/check.sh main (everything on your branch)
# As a git hook: printf '#!/bin/sh\nexec scripts/check.sh\n' > "$(git rev-parse --git-path hooks)/pre-commit"
#                chmod +x "$(git rev-parse --git-path hooks)/pre-commit"
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-HEAD}
changed() {  # the changed files matching the patterns given, that still exist
  (git diff --name-only --diff-filter=d "$BASE" -- "$@"; git ls-files --others --exclude-standard -- "$@") |
    sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done
}
mapfile -t cxx < <(changed '*.cpp' '*.h' '*.hpp' '*.cc')
# A changed header is checked through the source of its name (clang-tidy reports a header's findings there).
mapfile -t sources < <( (changed '*.cpp'; changed '*.h' | sed 's/\.h$/.cpp/') | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
mapfile -t python < <(changed '*.py')
status=0
if [ ${#cxx[@]} -gt 0 ]; then scripts/check-format.sh "${cxx[@]}" || status=1; fi
if [ ${#sources[@]} -gt 0 ]; then
  if [ -f "${BUILD:-build/ci}/compile_commands.json" ]; then
    scripts/check-tidy.sh "${sources[@]}" || status=1
  else
    echo "[check] clang-tidy skipped: no ${BUILD:-build/ci}/compile_commands.json (cmake --preset ci)" >&2
  fi
fi
if [ ${#python[@]} -gt 0 ]; then scripts/check-python.sh "${python[@]}" || status=1; fi
[ $((${#cxx[@]} + ${#python[@]})) -gt 0 ] || echo "[check] no C++ or Python file changed since $BASE"
exit $status
