// oomscope-cli: the headless front end. Links core only (no Qt, no torch). Every command's options are
// defined with CLI11 (app/cli/command.h); this file builds the command tree, parses, and maps errors to the
// documented exit codes: 0 success, 1 bad input or I/O, 2 bad arguments, 3 internal error, 130 cancelled
// (others per command: report 5, simulate 4 and 6; docs/cli.md).

#include <CLI/CLI.hpp>  // the whole library once: CLI11 defines its formatter and config readers here
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/command.h"
#include "app/cli/options_json.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"
#include "oomscope_version.h"  // generated: cmake/OomscopeVersion.cmake

namespace {

using oomscope::cli::Runner;

constexpr int kUsageExit = 2;

// Help text ends with a newline (CLI11 ends it with the footer's last line, without one).
std::string with_newline(std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

// The deepest subcommand the parser entered, and its name as typed ("oomscope-cli bench report").
const CLI::App* selected(const CLI::App& app, std::string& path) {
  path = app.get_name();
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
    at = subs.front();
    path += " " + at->get_name();
  }
  return at;
}

// A usage error: what is wrong, the usage line, and where the options are described. Exit code 2.
int usage_error(const CLI::App& app, const std::string& message) {
  std::string path;
  const CLI::App* at = selected(app, path);
  // The usage line of the command's help ("Usage: oomscope-cli report [OPTIONS] CAPTURE...").
  const std::string help =
      at->help(path.substr(0, path.rfind(' ') == std::string::npos ? 0 : path.rfind(' ')));
  const std::size_t from = help.find("Usage:");
  const std::string usage =
      from == std::string::npos ? "" : help.substr(from, help.find('\n', from) - from + 1);
  std::cerr << path << ": " << oomscope::terminal_safe(message) << "\n"
            << usage << "`" << (at == &app ? "oomscope-cli --help" : "oomscope-cli help " + path.substr(13))
            << "` describes every option.\n";
  return kUsageExit;
}

// `oomscope-cli help [COMMAND [NAME]]`: the help of a command (or a benchmark) without running it.
int show_help(const CLI::App& app, const std::vector<std::string>& topic) {
  const CLI::App* at = &app;
  std::string prev;
  for (const std::string& word : topic) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : at->get_subcommands({}))
      if (sub->get_name() == word && !sub->get_group().empty()) next = sub;
    if (!next) {
      std::cerr << "oomscope-cli help: unknown command '" << oomscope::terminal_safe(word) << "'\n";
      return kUsageExit;
    }
    if (!prev.empty()) prev += ' ';
    prev += at->get_name();
    at = next;
  }
  std::cout << with_newline(at->help(prev));
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"oomscope-cli: explain GPU out-of-memory failures from captures, headless.", "oomscope-cli"};
  app.get_formatter()->column_width(32);
  app.set_help_flag("-h,--help", "print this help; `oomscope-cli help COMMAND` shows a command's options");
  app.footer(
      "Exit codes: 0 success, 1 bad input or an I/O problem, 2 bad arguments, 3 internal error, 4 and 6 see "
      "simulate,\n5 see report, 130 cancelled.");
  bool version = false;
  app.add_flag("--version", version, "print the version, the git commit and the optional parts built in");
  std::map<const CLI::App*, Runner> runners;
  for (const auto& c : oomscope::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.synopsis);
    sub->group("commands");
    sub->set_help_flag("-h,--help", "print this help");
    sub->get_formatter()->column_width(32);
    runners[sub] = c.define(*sub);
  }
  std::vector<std::string> topic;
  CLI::App* help = app.add_subcommand("help", "show the options of a command: oomscope-cli help COMMAND");
  help->group("commands");
  help->add_option("COMMAND", topic, "a command, and for bench a benchmark")->type_name("COMMAND");
  // For packaging/make_bash_completion.py: the definitions as JSON (no group: not listed in the help).
  CLI::App* spec = app.add_subcommand("options-json", "every command's options as JSON")->group("");
  app.require_subcommand(0, 1);

  if (argc < 2) {
    std::cout << with_newline(app.help());
    return kUsageExit;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << with_newline(app.help());
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e.what());
  }
  if (help->parsed()) return show_help(app, topic);
  if (spec->parsed()) {
    std::cout << oomscope::cli::options_json(app).dump(1) << "\n";
    return 0;
  }
  if (version) {
    std::cout << "oomscope-cli " OOMSCOPE_VERSION_STRING "\n" OOMSCOPE_VERSION_DETAILS;
    return 0;
  }
  const auto subs = app.get_subcommands();
  if (subs.empty()) return usage_error(app, "name a command");
  try {
    return runners.at(subs.front())();
  } catch (const oomscope::cli::UsageError& e) {
    return usage_error(app, e.message);
  } catch (const CLI::ParseError& e) {  // a value checked when the command ran
    return usage_error(app, e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
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
