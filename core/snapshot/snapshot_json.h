#pragma once
// JSON forms of a snapshot: the `snapshot` object of `info --json` and the `report --json` document
// (docs/pytorch-files.md, section "JSON").

#include <nlohmann/json_fwd.hpp>

#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

nlohmann::json snapshot_summary_json(const Snapshot& snap, const SnapshotReport& r);
nlohmann::json snapshot_report_json(const Snapshot& snap, const SnapshotReport& r);
nlohmann::json diagnosis_lines_json(const std::vector<analysis::DiagnosisLine>& lines);

}  // namespace oomscope::snapshot
