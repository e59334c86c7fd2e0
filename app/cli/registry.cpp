// The command and benchmark registries, the option helpers shared by the commands, and the description of
// every command's options as JSON (the hidden `options-json` command) that packaging/make_bash_completion.py
// turns into the bash completion, so that the completion comes from the CLI11 definitions themselves.

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/options_json.h"
#include "core/util/bytes.h"

namespace oomscope::cli {

namespace {

std::vector<Command>& command_registry() {
  static std::vector<Command> all;
  return all;
}

std::vector<Command>& bench_registry() {
  static std::vector<Command> all;
  return all;
}

bool add_sorted(std::vector<Command>& to, Command c) {
  to.push_back(std::move(c));
  std::sort(to.begin(), to.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  return true;
}

}  // namespace

bool register_command(Command command) { return add_sorted(command_registry(), std::move(command)); }
const std::vector<Command>& commands() { return command_registry(); }
bool register_bench(Command bench) { return add_sorted(bench_registry(), std::move(bench)); }
const std::vector<Command>& benches() { return bench_registry(); }

CLI::Option* add_byte_size(CLI::App& app, const std::string& name, std::int64_t& into,
                           const std::string& help, std::int64_t min) {
  return app
      .add_option_function<std::string>(
          name,
          [&into, name, min](const std::string& text) {
            const ParsedBytes parsed = parse_byte_size(text);
            if (!parsed) throw CLI::ValidationError(name, parsed.error);
            if (parsed.bytes < min)
              throw CLI::ValidationError(
                  name, "'" + text + "' is below the least allowed, " + std::to_string(min) + " B");
            into = parsed.bytes;
          },
          help)
      ->type_name("BYTES");
}

std::size_t parse_count(const std::string& name, const std::string& v) {
  std::size_t n = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n == 0)
    throw CLI::ValidationError(name, "'" + v + "' is not a positive number");
  return n;
}

std::int64_t parse_capacity(const std::string& name, const std::string& text) {
  const ParsedBytes parsed = parse_byte_size(text);
  if (!parsed) throw CLI::ValidationError(name, parsed.error);
  if (parsed.bytes < 1)
    throw CLI::ValidationError(name, "'" + text + "' is not a pool; give at least one byte");
  return parsed.bytes;
}

CLI::Option* add_count(CLI::App& app, const std::string& name, std::size_t& into, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name, [&into, name](const std::string& v) { into = parse_count(name, v); }, help)
      ->type_name("N");
}

nlohmann::json options_json(const CLI::App& app) {
  nlohmann::json j;
  j["name"] = app.get_name();
  j["options"] = nlohmann::json::array();
  j["positionals"] = nlohmann::json::array();
  for (const CLI::Option* o : app.get_options()) {
    nlohmann::json opt;
    opt["names"] = nlohmann::json::array();
    for (const auto& s : o->get_snames()) opt["names"].push_back("-" + s);
    for (const auto& l : o->get_lnames()) opt["names"].push_back("--" + l);
    opt["value"] = o->get_type_size_max() > 0 ? o->get_type_name() : "";
    if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) {
      j["positionals"].push_back({{"name", o->get_name()}, {"value", o->get_type_name()}});
      continue;
    }
    j["options"].push_back(opt);
  }
  j["subcommands"] = nlohmann::json::array();
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) j["subcommands"].push_back(options_json(*sub));
  return j;
}

}  // namespace oomscope::cli
