#pragma once
// `oomscope-cli bench NAME [OPTIONS]`: benchmarks as commands, reported as figures (not timed unit tests).
// A benchmark is registered like a command (app/cli/command.h): OOMSCOPE_BENCH(Command{name, synopsis,
// define}) in its bench_<name>.cpp; `bench` adds each as its own CLI11 subcommand.

#include "app/cli/command.h"
