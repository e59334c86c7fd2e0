// `oomscope-cli simulate`: runs the split-and-retry simulator headless and prints its totals.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/sim_options.h"
#include "app/cli/sim_run.h"

namespace oomscope::cli {

namespace {

Runner define_simulate(CLI::App& app) {
  // The options as given, in order, as parse_options reads them.
  auto given = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  app.footer(
      "Simulates split-and-retry training under a GPU memory budget: the batch is tried whole, split per\n"
      "scene when it fails, then bisected in space, and the totals show what that costs and what reached\n"
      "the optimizer step. A preset is applied first, then any toggle overrides it.\n"
      "Exit code 4 when the run crashes (a bug its --catch mode does not catch, or a fragment at the floor\n"
      "under --on-floor raise); 6 when no attempt succeeded under --catch oom-only.");
  for (const SimOptionDef& d : sim_option_defs()) {
    const std::string name = d.name;
    app.add_option_function<std::string>(
           name,
           [given, name](const std::string& v) {
             given->push_back(name);
             given->push_back(v);
           },
           d.help)
        ->type_name(d.value)
        ->trigger_on_parse()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  app.add_flag("--json", *json, "totals as JSON instead of text");
  return [given, json] {
    const SimOptions o = parse_sim_options(*given);
    for (const std::string& w : o.warnings) std::cerr << "oomscope-cli simulate: warning: " << w << "\n";
    const SimOutcome r = run_simulation(o, {});
    if (*json)
      std::cout << r.out.json.dump(2) << "\n";
    else
      std::cout << r.out.text;
    for (const std::string& note : r.notes) std::cerr << "oomscope-cli simulate: " << note << "\n";
    return r.exit_code;
  };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"simulate", "simulate split-and-retry training under a GPU memory budget",
                         define_simulate});

}  // namespace oomscope::cli
