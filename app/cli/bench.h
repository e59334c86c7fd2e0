#pragma once
// `oomscope-cli bench NAME [ARGS...]`: benchmarks as commands, reported as figures (not timed unit tests).
// Each bench_<name>.cpp registers itself with OOMSCOPE_BENCH(...).

#include "app/cli/command.h"

namespace oomscope::cli {

bool register_bench(Command bench);
const std::vector<Command>& benches();

}  // namespace oomscope::cli

#define OOMSCOPE_BENCH(...)                                                     \
  static const bool OOMSCOPE_CLI_CONCAT(oomscope_bench_registered_, __LINE__) = \
      ::oomscope::cli::register_bench(__VA_ARGS__)
