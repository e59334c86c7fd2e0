#include "app/cli/live_options.h"

#include "core/util/error.h"

namespace oomscope::cli {

CLI::Option* add_alert_option(CLI::App& app, std::vector<live::AlertRule>& rules) {
  return app
      .add_option_function<std::vector<std::string>>(
          "--alert",
          [&rules](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) {
              try {
                rules.push_back(live::parse_alert_rule(text));
              } catch (const Error& e) {
                throw CLI::ValidationError("--alert", e.message());
              }
            }
          },
          "driver>22000MB, growth:driver>500MB, moves:ooms, gap>4GB, shapes-rising[:N], event:oom,\n"
          "forecast:STEPS (repeatable; see docs/live-protocol.md)")
      ->type_name("RULE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace oomscope::cli
