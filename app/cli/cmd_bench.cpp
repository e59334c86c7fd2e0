// `oomscope-cli bench NAME [OPTIONS]`: each registered benchmark (bench_*.cpp) is a subcommand of bench.

#include <map>

#include "app/cli/bench.h"

namespace oomscope::cli {

namespace {

Runner define_bench(CLI::App& app) {
  auto runners = std::make_shared<std::map<const CLI::App*, Runner>>();
  for (const Command& b : benches()) {
    CLI::App* sub = app.add_subcommand(b.name, b.synopsis);
    sub->group("benchmarks");
    sub->set_help_flag("-h,--help", "print this help");
    sub->get_formatter()->column_width(32);
    (*runners)[sub] = b.define(*sub);
  }
  // Without a known name the runner says what is wrong (CLI11 would only say that a subcommand is needed).
  app.require_subcommand(0, 1);
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({})) sub->allow_extras(false);
  app.footer("`oomscope-cli bench NAME --help` shows a benchmark's options.");
  return [runners, &app]() -> int {
    const auto chosen = app.get_subcommands();
    if (!chosen.empty()) return runners->at(chosen.front())();
    const auto rest = app.remaining();
    if (rest.empty()) throw UsageError{"name a benchmark"};
    throw UsageError{"unknown benchmark '" + rest.front() + "'"};
  };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"bench", "run a benchmark and print its figures", define_bench});

}  // namespace oomscope::cli
