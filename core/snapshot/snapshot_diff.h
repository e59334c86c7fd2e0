#pragma once
// The difference between two snapshots (A then B): totals, figures by memory pool, the peak's composition by
// category, and the allocation sites (innermost user frame), by site and category, whose bytes at the peak
// changed most.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/snapshot/pool_diff.h"
#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

struct DiffRow {
  std::string name;
  std::int64_t a = 0, b = 0;
  std::int64_t delta() const { return b - a; }
};

// Bytes live at each run's peak at one site (user code line) in one category.
struct DiffSiteRow {
  std::string site, category;
  std::string rule;  // why the category: B's rule where B has bytes there, else A's
  std::int64_t a = 0, b = 0;
  std::size_t a_count = 0, b_count = 0;
  std::int64_t delta() const { return b - a; }
};

// One run's active-memory peak (the Active Memory Timeline's, timeline.h) [derived].
struct DiffPeak {
  std::string path;
  std::int64_t device = 0;
  std::int64_t bytes = 0;
  std::int64_t trace_entry = -1;  // first raw trace index at the peak; -1: the level before the first entry
  std::optional<double> time_s;   // since the device's first trace entry; none without times or entry
  bool traced = false;            // the device has trace entries (else the peak is the snapshot's blocks)
  // The innermost external_annotations range holding the peak's entry (its name, as the trainer named it:
  // "## forward ##", "ProfilerStep#3"); "" when the file has none there.
  std::string window;
};

struct SnapshotDiff {
  std::string path_a, path_b;
  DiffPeak peak_a, peak_b;
  std::vector<DiffRow> totals;      // fixed rows: reserved, allocated, peak, ...
  PoolDiff pools;                   // the main devices' allocator state by memory pool
  std::vector<DiffRow> categories;  // bytes at each file's peak
  std::vector<DiffRow> sites;       // bytes at the peak by allocation site, largest |delta| first
  std::size_t sites_total = 0;
  std::vector<DiffSiteRow> site_rows;  // by (site, category), largest |delta| first, changed rows only
  std::size_t site_rows_total = 0;     // changed rows before the cut to `top`
  std::string rules_path;              // the user's category rules, or empty
  std::vector<analysis::DiagnosisLine> findings;
};

// The peak moved: both runs' peaks fall inside an annotation range, and the ranges' names differ.
bool peak_moved(const DiffPeak& a, const DiffPeak& b);

// With `rules`, categories (of the reports too: analyse them with the same rules) follow the user's rules.
SnapshotDiff diff_snapshots(const Snapshot& a, const SnapshotReport& ra, const Snapshot& b,
                            const SnapshotReport& rb, std::size_t top = 25,
                            const CategoryRules* rules = nullptr);

void write_diff_text(std::ostream& o, const SnapshotDiff& d);
nlohmann::json diff_json(const SnapshotDiff& d);

}  // namespace oomscope::snapshot
