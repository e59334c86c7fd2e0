#pragma once
// Every command's options, positionals and subcommands as JSON, read from the CLI11 definitions:
// {"name", "options": [{"names": ["-h", "--help"], "value": "" | "N" | "FILE" | "a|b"}], "positionals":
// [{"name", "value"}], "subcommands": [...]}. Printed by `oomscope-cli options-json` (hidden) for
// packaging/make_bash_completion.py.

#include <CLI/App.hpp>
#include <nlohmann/json_fwd.hpp>

namespace oomscope::cli {

nlohmann::json options_json(const CLI::App& app);

}  // namespace oomscope::cli
