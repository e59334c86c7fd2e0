#pragma once
// `diff A B` on two Kineto traces or two JAX device memory profiles (core/snapshot/profile_diff.h): what
// each format can compare honestly, and what it cannot tell.

#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>

#include "app/cli/command_documents.h"

namespace oomscope::cli {

// nullopt: neither file is a Chrome trace or a pprof profile (diff_document reads them as snapshots).
// Throws oomscope::Error naming B when one is a trace or profile and the other is of another kind.
std::optional<Rendered> profile_diff_document(const std::string& a, const std::string& b, std::size_t top,
                                              ProgressSink& progress, const std::stop_token& stop,
                                              const snapshot::CategoryRules* rules = nullptr);

}  // namespace oomscope::cli
