#pragma once
// The text report of a snapshot (oomscope-cli report), in the capture report's style.

#include <ostream>
#include <vector>

#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

void write_snapshot_text(std::ostream& o, const Snapshot& snap, const SnapshotReport& r, std::size_t top);
// "DIAGNOSIS" and its lines (shared with the Kineto / diff reports).
void write_diagnosis_text(std::ostream& o, const std::vector<analysis::DiagnosisLine>& lines);

}  // namespace oomscope::snapshot
