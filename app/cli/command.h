#pragma once
// oomscope-cli subcommands. Each cmd_<name>.cpp registers itself with a static OOMSCOPE_COMMAND(...)
// so that adding a command touches no shared file.

#include <functional>
#include <string>
#include <vector>

namespace oomscope::cli {

struct Command {
  std::string name;
  std::string synopsis;  // one line, shown by `oomscope-cli help`
  std::string usage;     // full usage text, shown by `oomscope-cli help NAME` and on bad arguments
  // args excludes the program and command names. Returns the process exit code.
  std::function<int(const std::vector<std::string>& args)> run;
  // Optional: usage text computed when shown (for commands whose usage lists registered parts).
  std::function<std::string()> dynamic_usage = {};
  // True when run() handles --help itself (bench passes it on to the benchmark named before it).
  bool handles_help = false;

  std::string usage_text() const { return dynamic_usage ? dynamic_usage() : usage; }
};

bool register_command(Command command);
const std::vector<Command>& commands();

// Thrown by commands for bad arguments: main prints the message and the command's usage, exit code 2.
struct UsageError {
  std::string message;
};

}  // namespace oomscope::cli

#define OOMSCOPE_CLI_CONCAT2(a, b) a##b
#define OOMSCOPE_CLI_CONCAT(a, b) OOMSCOPE_CLI_CONCAT2(a, b)
#define OOMSCOPE_COMMAND(...)                                                     \
  static const bool OOMSCOPE_CLI_CONCAT(oomscope_command_registered_, __LINE__) = \
      ::oomscope::cli::register_command(__VA_ARGS__)
