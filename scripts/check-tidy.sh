#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) on C++ source files; every finding fails. Needs
# build/ci/compile_commands.json (cmake --preset ci), and a built tree for the cache below.
# Usage: scripts/check-tidy.sh [--all | --shard K/N | FILE...]
#   no argument, on a branch: the .cpp files changed since its merge base with main, and untracked ones;
#   no argument, on main itself (CI's clone, where that merge base is HEAD): the .cpp files changed by the last
#     TIDY_COMMITS (default 10) commits of main's first-parent history, the most recently changed first,
#     at most TIDY_MAX_FILES (default 8) of them not already in the cache; the rest wait for the next run;
#   --all: every compiled .cpp file; --shard K/N: the K-th of N equal shares of the tracked .cpp files (K from 0; in
#     path order, every N-th from the K-th), so that N runs with K = 0..N-1 check the whole tree;
#   FILE...: those. TIDY_BASE names another branch than main.
# A file found clean is remembered in a cache of results keyed by the file, the headers of the tree it
# includes, its compile command, .clang-tidy and the clang-tidy version (scripts/tidy_keys.py), stored outside
# the tree in $TIDY_CACHE (default ~/.cache/oomscope/tidy; TIDY_CACHE=none: no cache); a file whose key is
# there is not checked again. 5 to 20 CPU-seconds a file (CONTRIBUTING.md, "Style checks", says how long a run
# takes); TIDY_MAX_FILES=0: no limit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/ci}
TIDY_COMMITS=${TIDY_COMMITS:-10}
CACHE=${TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oomscope/tidy}
command -v clang-tidy >/dev/null || { echo "[tidy] clang-tidy is not installed (packaging/install-deps.sh)" >&2; exit 1; }
[ -f "$BUILD/compile_commands.json" ] || { echo "[tidy] no $BUILD/compile_commands.json: run cmake --preset ci" >&2; exit 1; }

limit=${TIDY_MAX_FILES:-0}
base=$(git merge-base HEAD "${TIDY_BASE:-main}" 2>/dev/null || git rev-parse HEAD)
if [ "${1:-}" = "--all" ]; then
  what="every compiled file"
  mapfile -t files < <(git ls-files -- '*.cpp')
elif [ "${1:-}" = "--shard" ]; then
  [[ "${2:-}" =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] ||
    { echo "[tidy] --shard wants K/N with 0 <= K < N, not '${2:-}'" >&2; exit 2; }
  shard=${BASH_REMATCH[1]} shards=${BASH_REMATCH[2]}
  what="shard $shard of $shards (0-based) of every compiled file"
  mapfile -t files < <(git ls-files -- '*.cpp' | sort | awk -v k="$shard" -v n="$shards" '(NR - 1) % n == k')
elif [ $# -gt 0 ]; then
  what="the files given"
  files=("$@")
elif [ "$base" != "$(git rev-parse HEAD)" ]; then
  what="the files changed since main"
  mapfile -t files < <( (git diff --name-only --diff-filter=d "$base" -- '*.cpp'; git ls-files --others --exclude-standard -- '*.cpp') | sort -u)
else
  what="the files changed by the last $TIDY_COMMITS commits of main"
  limit=${TIDY_MAX_FILES:-8}
  # Newest first; a file changed by several of these commits counts once, at its latest change.
  mapfile -t files < <(git log --first-parent --diff-merges=first-parent -n "$TIDY_COMMITS" --name-only \
    --diff-filter=d --format= -- '*.cpp' | awk 'NF && !seen[$0]++' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
fi

# Only files the build compiles (the fuzz targets and GPU-only sources are not in compile_commands.json), each
# with its key; the order of the list is kept.
declare -A key_of=()
if [ ${#files[@]} -gt 0 ]; then
  while read -r key file; do key_of[$file]=$key; done < <(python3 scripts/tidy_keys.py "$BUILD" "${files[@]}")
fi
todo=() cached=0 waiting=0
for f in "${files[@]}"; do
  [ -n "${key_of[$f]:-}" ] || continue
  key=${key_of[$f]}
  if [ "$CACHE" != none ] && [ "$key" != - ] && [ -f "$CACHE/$key" ]; then
    cached=$((cached + 1))
  elif [ "$limit" -gt 0 ] && [ ${#todo[@]} -ge "$limit" ]; then
    waiting=$((waiting + 1))
  else
    todo+=("$f")
  fi
done
if [ ${#todo[@]} -eq 0 ]; then
  echo "[tidy] $what: nothing to check ($cached clean in the cache of results)"
  exit 0
fi
echo "[tidy] $what: checking ${#todo[@]} file(s) ($cached clean in the cache, $waiting left for a later run)"
[ "$CACHE" = none ] || mkdir -p "$CACHE"
# clang-tidy reads the compile commands without the precompiled headers (cmake/OomscopePch.cmake): GCC's .gch
# files are not clang's, and each file must compile from what it includes itself. The GCC 12 warnings those
# targets turn off are GCC's alone, so they go too.
DB=$(mktemp -d)
trap 'rm -rf "$DB"' EXIT
python3 - "$BUILD/compile_commands.json" "$DB/compile_commands.json" <<'PY'
import json, re, sys
commands = json.load(open(sys.argv[1]))
for c in commands:
    c["command"] = re.sub(r" -include \S*cmake_pch\.hxx| -Winvalid-pch| -Wno-(array-bounds|restrict|stringop-overflow"
                          r"|stringop-overread)\b", "", c["command"])
json.dump(commands, open(sys.argv[2], "w"))
PY
export BUILD CACHE DB
# One clang-tidy per file, so that each clean file is remembered under its key.
check_one() {
  local file=$1 key=$2
  if clang-tidy -p "$DB" --quiet "$file" 2>/dev/null; then
    [ "$CACHE" = none ] || [ "$key" = - ] || : >"$CACHE/$key"
  else
    echo "[tidy] findings in $file" >&2
    return 1
  fi
}
export -f check_one
for f in "${todo[@]}"; do printf '%s\0%s\0' "$f" "${key_of[$f]}"; done |
  xargs -0 -n 2 -P "$(nproc)" bash -c 'check_one "$1" "$2"' _ || { echo "[tidy] fix the findings above (or // NOLINT(check): why)" >&2; exit 1; }
echo "[tidy] no findings"
