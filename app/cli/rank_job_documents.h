#pragma once
// `report` and `info` on the per-rank snapshots of one job (core/snapshot/rank_job.h decides whether they
// are one): a ranks table, the verdict and the imbalance, as text and JSON (docs/report-json.md).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/command_documents.h"

namespace oomscope::cli {

// nullopt: the files are not the ranks of one job (fewer than two snapshots, other kinds of file among them,
// no rank evidence), and `report` goes on as before. A file named like a rank's snapshot that cannot be
// read is passed to `on_failure` and listed under "failed" (exit 5), the others are compared. Throws
// oomscope::Error naming the file when two files claim the same rank. full: per-rank categories and sites
// (report) or the table, verdict and imbalance only (info). rules (may be null): the user's category rules
// (--categories), applied to every rank; the JSON names the file in `category_rules`.
std::optional<ReportDocument> rank_job_document(const std::vector<std::string>& files, std::size_t top,
                                                std::optional<std::int64_t> capacity, bool full,
                                                ProgressSink& progress, const std::stop_token& stop,
                                                const std::function<void(const Error&)>& on_failure,
                                                const snapshot::CategoryRules* rules = nullptr);

}  // namespace oomscope::cli
