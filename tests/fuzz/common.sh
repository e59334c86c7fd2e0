# Sourced by the run*.sh fuzz scripts: fuzz_setup TARGET NAME [SECONDS] builds the `fuzz` preset (clang,
# libFuzzer + ASan) if needed and the libFuzzer TARGET, and sets $root, $build, $seconds and the folders
# $corpus and $seeds (build/fuzz/fuzz-corpus/NAME, build/fuzz/fuzz-seeds/NAME) and $artifacts (crash files).
fuzz_setup() {
  target=$1
  name=$2
  seconds=${3:-60}
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build="$root/build/fuzz"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    (cd "$root" && cmake --preset fuzz)
  fi
  cmake --build "$build" --target "$target" -j2
  corpus="$build/fuzz-corpus/$name"
  seeds="$build/fuzz-seeds/$name"
  artifacts="$build/fuzz-artifacts/"
  mkdir -p "$corpus" "$seeds" "$artifacts"
}
