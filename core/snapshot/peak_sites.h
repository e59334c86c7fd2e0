#pragma once
// What is live at a device's active-memory peak, by allocation site: the shared reading behind `diff`,
// the per-rank comparison and the two-run overlay.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/snapshot/categories.h"
#include "core/snapshot/snapshot_analysis.h"

namespace oomscope::snapshot {

class CategoryRules;

// The analysis of the snapshot's default device, else the first device analysed; nullptr with none.
const DeviceAnalysis* main_device(const Snapshot& s, const SnapshotReport& r);

// Bytes live at the device's peak per allocation site (the innermost user frame, see user_frame();
// "(no stack)" for an element without frames). Every live element counts, not only the report's top rows.
std::map<std::string, std::int64_t> sites_at_peak(const Snapshot& s, const DeviceAnalysis* d);

// The bytes live at the peak at one site (user code line) in one category.
struct PeakSite {
  std::string site;      // as sites_at_peak() names it
  std::string category;  // label(): a built-in category's name or a user rule's
  std::string rule;      // why: the rule of the largest element in the group
  std::int64_t bytes = 0;
  std::size_t count = 0;
};

// Every element live at the device's peak grouped by (site, category), each element categorised as the
// report does (its stack and its lifetime; with `rules`, the user's rules first). Sorted by site, then
// category. Σ bytes is the peak's bytes.
std::vector<PeakSite> categorised_sites_at_peak(const Snapshot& s, const DeviceAnalysis* d,
                                                const CategoryRules* rules = nullptr);

}  // namespace oomscope::snapshot
