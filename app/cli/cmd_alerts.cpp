// `oomscope-cli alerts --prometheus-rules FILE [--rules RULES_FILE] [--alert RULE]...`: the live alert rules
// (the Live page's and watch's) as a Prometheus alerting-rules file (core/live/prom/prometheus_rules.h).

#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/command.h"
#include "core/live/prom/prometheus_rules.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the rules file");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, path, "cannot read the rules file");
  return s.str();
}

// args: the options as given, in order (name, value), recorded by define_alerts.
int run_alerts(const std::vector<std::string>& args) {
  std::string out_path;
  std::vector<live::AlertRule> rules;
  live::PromRulesOptions options;
  bool given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    try {
      if (a == "--prometheus-rules") {
        out_path = value();
      } else if (a == "--rules") {
        const std::string& path = value();
        for (auto& r : live::parse_alert_rule_list(read_text(path), path)) rules.push_back(std::move(r));
        options.sources.push_back(path);
        given = true;
      } else if (a == "--alert") {
        rules.push_back(live::parse_alert_rule(value()));
        if (options.sources.empty() || options.sources.back() != "--alert")
          options.sources.push_back("--alert");
        given = true;
      } else if (a == "--selector") {
        options.selector = value();
      } else if (a == "--for") {
        options.for_duration = value();
      } else if (a == "--window") {
        options.window = value();
      } else if (a == "--group") {
        options.group = value();
      } else {
        throw UsageError{"unknown option '" + a + "'"};
      }
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Io) throw;
      throw UsageError{e.message()};
    }
  }
  if (out_path.empty()) throw UsageError{"give --prometheus-rules FILE (or - for stdout)"};
  if (!given) {
    rules = live::default_alert_rules();
    options.sources.push_back("the Live page's default rules");
  }
  live::PromRules result;
  try {
    result = live::prometheus_rules(rules, options);
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  for (const auto& [text, why] : result.skipped)
    std::cerr << "oomscope-cli alerts: rule '" << text << "' is not expressible in PromQL (" << why
              << "); listed in a comment, not written\n";
  if (out_path == "-") {
    std::cout << result.yaml;
  } else {
    write_file_atomically(out_path, result.yaml);
    std::cerr << "oomscope-cli alerts: wrote " << result.rules.size() << " alerting rule"
              << (result.rules.size() == 1 ? "" : "s") << " to " << out_path << "\n";
  }
  return 0;
}

Runner define_alerts(CLI::App& app) {
  auto given = std::make_shared<std::vector<std::string>>();
  app.footer(
      "Writes the live alert rules as a Prometheus alerting-rules file over the agents' /metrics, so the\n"
      "cluster's own Prometheus and Alertmanager fire them (docs/prometheus.md). Without --rules or --alert\n"
      "it writes the rules a Live page session starts with (driver>22000MB, moves:ooms, "
      "moves:alloc_retries,\n"
      "shapes-rising). A rule PromQL cannot express is listed in a comment in FILE and on stderr.");
  struct Def {
    const char* name;
    const char* value;
    const char* help;
  };
  static constexpr Def kOptions[] = {
      {"--prometheus-rules", "FILE", "the file to write (atomically; '-' for stdout)"},
      {"--rules", "FILE",
       "rules as the Live page's Alerts field takes them: separated by spaces, commas,\n"
       "semicolons or newlines; '#' starts a comment (see docs/live-protocol.md)"},
      {"--alert", "RULE", "one more rule, as for `watch --alert` (repeatable)"},
      {"--selector", "M", "label matchers added to every series, e.g. 'job=\"train\"'"},
      {"--for", "D", "how long a threshold, gap or growth condition must hold (default 1m)"},
      {"--window", "D", "how far growth and shapes-rising rules look back (default 15m)"},
      {"--group", "NAME", "the rule group's name (default oomscope)"},
  };
  // Recorded in the order given: the rules' sources are listed in that order in the file.
  for (const Def& d : kOptions) {
    const std::string name = d.name;
    auto* opt = app.add_option_function<std::string>(
                       name,
                       [given, name](const std::string& v) {
                         given->push_back(name);
                         given->push_back(v);
                       },
                       d.help)
                    ->type_name(d.value)
                    ->trigger_on_parse();
    if (name == "--alert" || name == "--rules")
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    else
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  return [given] { return run_alerts(*given); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"alerts", "write the live alert rules as a Prometheus alerting-rules file",
                         define_alerts});

}  // namespace oomscope::cli
