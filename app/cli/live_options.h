#pragma once
// Options the live commands (watch, replay) share, defined once so that they read and fail alike.

#include <CLI/App.hpp>
#include <vector>

#include "core/live/client/alerts.h"

namespace oomscope::cli {

// --alert RULE, repeatable: each rule parsed when read (docs/live-protocol.md lists the forms).
CLI::Option* add_alert_option(CLI::App& app, std::vector<live::AlertRule>& rules);

}  // namespace oomscope::cli
