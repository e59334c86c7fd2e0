#pragma once
// `report` and `info` on the per-rank Kineto traces of one job (core/snapshot/kineto_ranks.h decides whether
// they are one): the ranks table, the verdict and the imbalance of the peaks, as text and JSON
// (docs/report-json.md, "Ranks of one job: Kineto traces").

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/command_documents.h"

namespace oomscope::cli {

// nullopt: the files are not the ranks of one job (fewer than two, a file of another kind among them, fewer
// than two with a rank), and the caller goes on as before. A Kineto trace that cannot be read is passed to
// `on_failure` and listed under "failed" (exit 5); the others are compared. Throws oomscope::Error naming the
// file when two traces claim the same rank.
std::optional<ReportDocument> kineto_rank_document(const std::vector<std::string>& files,
                                                   std::optional<std::int64_t> capacity,
                                                   ProgressSink& progress, const std::stop_token& stop,
                                                   const std::function<void(const Error&)>& on_failure);

}  // namespace oomscope::cli
