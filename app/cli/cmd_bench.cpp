// `oomscope-cli bench NAME ...`: dispatches to the registered benchmarks (bench_*.cpp).

#include <algorithm>
#include <iostream>

#include "app/cli/bench.h"

namespace oomscope::cli {

static std::vector<Command>& bench_registry() {
  static std::vector<Command> all;
  return all;
}

bool register_bench(Command bench) {
  bench_registry().push_back(std::move(bench));
  std::sort(bench_registry().begin(), bench_registry().end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return true;
}

const std::vector<Command>& benches() { return bench_registry(); }

namespace {

std::string bench_usage() {
  std::string text = "usage: oomscope-cli bench NAME [ARGS...]\n\nbenchmarks:\n";
  for (const auto& b : benches()) text += "  " + b.name + "\t" + b.synopsis + "\n";
  text += "\n`oomscope-cli bench NAME --help` shows a benchmark's options.\n";
  return text;
}

int run_bench(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError{"name a benchmark"};
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << bench_usage();
    return 0;
  }
  for (const auto& b : benches()) {
    if (b.name != args[0]) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (std::find(rest.begin(), rest.end(), "--help") != rest.end()) {
      std::cout << b.usage_text();
      return 0;
    }
    try {
      return b.run(rest);
    } catch (const UsageError& e) {
      std::cerr << "oomscope-cli bench " << b.name << ": " << e.message << "\n\n" << b.usage_text();
      return 2;
    }
  }
  throw UsageError{"unknown benchmark '" + args[0] + "'"};
}

}  // namespace

OOMSCOPE_COMMAND(Command{"bench", "run a benchmark and print its figures", "", run_bench, bench_usage, true});

}  // namespace oomscope::cli
