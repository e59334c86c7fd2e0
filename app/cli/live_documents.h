#pragma once
// A live session's result as the live commands show it at their end: the rank table that `watch --json
// --table` and `replay --json --table` end with (least headroom first) and the per-rank summary `watch`
// and `replay` print as text. The MCP `live` tool returns these (app/cli/mcp_live_tool.cpp).

#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/other_formats.h"
#include "app/cli/watch_sources.h"
#include "core/live/client/alerts.h"
#include "core/util/progress.h"

namespace oomscope::cli {

// Replays a recording (throws oomscope::Error naming the file). The text is `replay FILE`'s output, with
// the note on a recording cut short after it.
Rendered replay_document(const std::string& path, const std::vector<live::AlertRule>& rules,
                         const std::stop_token& stop);

// Attaches to the sources for sources.duration_s seconds (progress: the share of that time gone), then
// detaches. The text is the summary `watch` prints at its end. A Prometheus server that never answered
// throws oomscope::Error with its error; oomscope::Cancelled when `stop` is requested.
Rendered attach_document(const WatchSources& sources, const std::vector<live::AlertRule>& rules,
                         ProgressSink& progress, const std::stop_token& stop);

}  // namespace oomscope::cli
