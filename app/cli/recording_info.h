#pragma once
// `info RUN.oomlive [--json]`: a short summary of a live recording built on the figures `report` compares
// its ranks with (core/live/client/recording_ranks.h) and its steps (recording_steps.h): ranks, hosts,
// duration, samples, steps, OOM events and the verdict in one line (docs/cli-json.md, "A live recording").

#include <stop_token>
#include <string>

#include "app/cli/other_formats.h"

namespace oomscope::cli {

// Throws oomscope::Error naming the file when it is not a recording, is damaged or holds no sample.
Rendered recording_info_document(const std::string& path, const std::stop_token& stop);

}  // namespace oomscope::cli
