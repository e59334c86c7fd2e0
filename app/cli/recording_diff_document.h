#pragma once
// `diff A B` on two live recordings (core/live/client/recording_diff.h): per rank the peaks, capacity, OOM
// events and steps of both runs, aligned by step, each run's verdict, and what a recording cannot tell
// (docs/pytorch-files.md, "diff of two live recordings").

#include <optional>
#include <stop_token>
#include <string>

#include "app/cli/other_formats.h"

namespace oomscope::cli {

// nullopt: neither file is a live recording. Throws oomscope::Error naming B when one is a recording and
// the other is of another kind, UsageError when `with_category_rules` (a recording has no allocations to
// categorise), and the recordings' own errors (recording_diff.h).
std::optional<Rendered> recording_diff_document(const std::string& a, const std::string& b,
                                                bool with_category_rules, const std::stop_token& stop);

}  // namespace oomscope::cli
