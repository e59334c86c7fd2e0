#pragma once
// oomscope-cli commands and benchmarks: one registry shape for both. Each cmd_<name>.cpp registers itself
// with a static OOMSCOPE_COMMAND(...), each bench_<name>.cpp with OOMSCOPE_BENCH(...), so that adding one
// touches no shared file. A registration names the command and gives `define`, which adds the command's
// options to its CLI11 subcommand and returns what runs it once the command line is parsed (CONTRIBUTING.md,
// "Adding a command or an option"). Help text, validation and the bash completion all come from those
// definitions.

#include <CLI/App.hpp>
#include <functional>
#include <string>
#include <vector>

namespace oomscope::cli {

// Runs a parsed command; returns the process exit code.
using Runner = std::function<int()>;

struct Command {
  std::string name;
  std::string synopsis;  // one line, listed by `oomscope-cli --help` (or `bench --help`)
  // Adds options, positionals, description and footer to `app` (the command's subcommand, already named
  // and described by the synopsis). The returned Runner reads the values the options were bound to.
  std::function<Runner(CLI::App& app)> define;
};

bool register_command(Command command);
const std::vector<Command>& commands();
bool register_bench(Command bench);
const std::vector<Command>& benches();

// Thrown by a Runner for bad arguments found after parsing: main prints the message and the command's help
// on stderr, exit code 2 (the same as a CLI11 parse error).
struct UsageError {
  std::string message;
};

// Option helpers shared by the commands, so that the same kind of value is checked the same way everywhere.
// A value of the byte-size grammar (core/util/bytes.h), converted when parsed; refuses sizes below `min`.
CLI::Option* add_byte_size(CLI::App& app, const std::string& name, std::int64_t& into,
                           const std::string& help, std::int64_t min = 0);
// A positive integer (1 or more).
CLI::Option* add_count(CLI::App& app, const std::string& name, std::size_t& into, const std::string& help);
// The checks behind add_count and report's --capacity, for callers without a command line (the MCP
// tools): they throw CLI::ValidationError(name, why) in the same words.
std::size_t parse_count(const std::string& name, const std::string& text);
std::int64_t parse_capacity(const std::string& name, const std::string& text);

}  // namespace oomscope::cli

#define OOMSCOPE_CLI_CONCAT2(a, b) a##b
#define OOMSCOPE_CLI_CONCAT(a, b) OOMSCOPE_CLI_CONCAT2(a, b)
#define OOMSCOPE_COMMAND(...)                                                     \
  static const bool OOMSCOPE_CLI_CONCAT(oomscope_command_registered_, __LINE__) = \
      ::oomscope::cli::register_command(__VA_ARGS__)
#define OOMSCOPE_BENCH(...)                                                     \
  static const bool OOMSCOPE_CLI_CONCAT(oomscope_bench_registered_, __LINE__) = \
      ::oomscope::cli::register_bench(__VA_ARGS__)
