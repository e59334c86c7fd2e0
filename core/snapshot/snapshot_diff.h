#pragma once
// The difference between two snapshots (A then B): totals, the peak's composition by category, and the
// allocation sites (innermost user frame) whose bytes at the peak changed most.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

struct DiffRow {
  std::string name;
  std::int64_t a = 0, b = 0;
  std::int64_t delta() const { return b - a; }
};

struct SnapshotDiff {
  std::string path_a, path_b;
  std::vector<DiffRow> totals;      // fixed rows: reserved, allocated, peak, ...
  std::vector<DiffRow> categories;  // bytes at each file's peak
  std::vector<DiffRow> sites;       // bytes at the peak by allocation site, largest |delta| first
  std::size_t sites_total = 0;
  std::vector<analysis::DiagnosisLine> findings;
};

SnapshotDiff diff_snapshots(const Snapshot& a, const SnapshotReport& ra, const Snapshot& b,
                            const SnapshotReport& rb, std::size_t top = 25);

void write_diff_text(std::ostream& o, const SnapshotDiff& d);
nlohmann::json diff_json(const SnapshotDiff& d);

}  // namespace oomscope::snapshot
