// oomscope-cli: the headless front end. Links core only (no Qt, no torch).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "app/cli/command.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"
#include "oomscope_version.h"  // generated: cmake/OomscopeVersion.cmake

namespace oomscope::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> all;
  return all;
}

bool register_command(Command command) {
  registry().push_back(std::move(command));
  std::sort(registry().begin(), registry().end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return true;
}

const std::vector<Command>& commands() { return registry(); }

}  // namespace oomscope::cli

namespace {

void print_help() {
  std::cout << "oomscope-cli: explain GPU out-of-memory failures from captures, headless.\n\n"
               "usage: oomscope-cli COMMAND [ARGS...]\n\ncommands:\n";
  std::size_t width = 0;
  for (const auto& c : oomscope::cli::commands()) width = std::max(width, c.name.size());
  for (const auto& c : oomscope::cli::commands())
    std::cout << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << c.synopsis << "\n";
  std::cout << "\n`oomscope-cli help COMMAND` shows a command's options.\n";
}

const oomscope::cli::Command* find(const std::string& name) {
  for (const auto& c : oomscope::cli::commands())
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "oomscope-cli " OOMSCOPE_VERSION_STRING "\n" OOMSCOPE_VERSION_DETAILS;
    return 0;
  }
  if (args[0] == "help") {
    if (args.size() > 1) {
      if (const auto* c = find(args[1])) {
        std::cout << c->usage_text();
        return 0;
      }
      std::cerr << "oomscope-cli: unknown command '" << args[1] << "'\n";
      return 2;
    }
    print_help();
    return 0;
  }
  const auto* command = find(args[0]);
  if (!command) {
    std::cerr << "oomscope-cli: unknown command '" << args[0] << "' (try `oomscope-cli help`)\n";
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (!command->handles_help && (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
                                 std::find(rest.begin(), rest.end(), "-h") != rest.end())) {
    std::cout << command->usage_text();
    return 0;
  }
  try {
    return command->run(rest);
  } catch (const oomscope::cli::UsageError& e) {
    std::cerr << "oomscope-cli " << command->name << ": " << oomscope::terminal_safe(e.message) << "\n\n"
              << command->usage_text();
    return 2;
  } catch (const oomscope::Cancelled&) {
    std::cerr << "oomscope-cli: cancelled\n";
    return 130;
  } catch (const oomscope::Error& e) {
    std::cerr << "oomscope-cli: error: " << oomscope::terminal_safe(e.what()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "oomscope-cli: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "oomscope-cli: internal error: " << oomscope::terminal_safe(e.what()) << "\n";
    return 3;
  }
}
