#pragma once
// The ranks of one job side by side (rank_job.h says which files those are): per rank the peaks, the
// capacity, the OOM and what is live at the peak; the verdict (which rank ran out, or which came closest
// to its capacity) and what that rank holds beyond the median rank; imbalance as max / median per category.

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/ranks/rank_imbalance.h"
#include "core/ranks/rank_verdict.h"
#include "core/snapshot/rank_job.h"
#include "core/snapshot/snapshot_analysis.h"
#include "core/util/enum_names.h"

namespace oomscope::snapshot {

enum class RankCapacitySource : std::uint8_t { None, Given, AtOom };
inline constexpr EnumName<RankCapacitySource> kRankCapacitySourceNames[] = {
    {RankCapacitySource::None, ""},
    {RankCapacitySource::Given, "--capacity"},
    {RankCapacitySource::AtOom, "reserved-at-oom-plus-device-free"}};
static_assert(names_every_value(kRankCapacitySourceNames, RankCapacitySource::AtOom));

struct RankOom {
  std::int64_t trace_index = -1;
  std::int64_t requested = 0;    // [read]
  std::int64_t device_free = 0;  // [read]
  std::int64_t time_us = -1;     // [read]; -1 not recorded
  std::int64_t reserved = 0;     // reserved at the OOM entry [derived]
};

struct RankFigures {
  std::int64_t rank = 0;
  std::string path, named_by;
  std::int64_t device = 0;
  std::int64_t peak_allocated = 0;  // active-memory peak [derived]
  std::int64_t peak_index = -1;
  std::int64_t peak_reserved = 0;  // reserved peak [derived]
  std::optional<std::int64_t> capacity;
  RankCapacitySource capacity_source = RankCapacitySource::None;
  std::optional<RankOom> oom;
  std::int64_t first_time_us = -1, last_time_us = -1;
  std::vector<CategoryTotal> categories;                        // at the peak, largest first
  std::map<std::string, std::int64_t> sites;                    // every site live at the peak
  std::vector<std::pair<std::string, std::int64_t>> top_sites;  // largest first
  std::vector<PeakAllocation> largest;                          // live at the peak, largest first
};

// The verdict's cases and the imbalance are core/ranks' (shared with the Kineto and the recording ranks).
using ranks::Imbalance;
using ranks::kVerdictCaseNames;
using ranks::median_of;
using ranks::rank_list;
using ranks::to_string;
using ranks::VerdictCase;

struct RankDifference {  // the verdict rank against the median rank
  std::string name;      // a category name or an allocation site
  std::int64_t bytes = 0;
  double median = 0;
  double difference() const { return static_cast<double>(bytes) - median; }
};

struct RankVerdict {
  std::int64_t rank = 0;
  VerdictCase kind = VerdictCase::Oom;
  std::vector<std::string> sentences;  // why this rank, with the labels of the figures
  std::vector<std::int64_t> oom_ranks;
  std::optional<bool> clocks_comparable;          // only with several OOMs
  std::vector<RankDifference> categories, sites;  // largest |difference| first, zero differences dropped
  std::size_t sites_total = 0;                    // sites that differ, before the top cut
};

struct RankComparison {
  RankGrouping grouping;
  std::vector<RankFigures> ranks;  // by rank
  RankVerdict verdict;
  Imbalance peak_allocated, peak_reserved;
  std::vector<Imbalance> categories;  // every category with bytes at some rank's peak, in category order
  std::string rules_path;             // the user's category rules (--categories), or empty
};

// snaps: the files given to group_ranks (grouping.is_job must be true). capacity: the user's figure for
// every rank's device (--capacity), else each OOM's reserved + device_free. rules (may be null): a user's
// category rules, tried on every rank before the built-in ones (docs/categories.md); a category of the
// user's own is compared by its name, where Custom stands in the category order.
RankComparison compare_ranks(const std::vector<std::shared_ptr<const Snapshot>>& snaps,
                             const RankGrouping& grouping, std::optional<std::int64_t> capacity,
                             std::size_t top = 10, const CategoryRules* rules = nullptr);

// How the categories were decided, as the text words it: "guessed from stacks", or with the user's rules
// first "rules of FILE, then guessed from stacks".
std::string rank_categories_source(const RankComparison& c);

// Text (full: per-rank categories and sites too) and JSON (docs/report-json.md, "Ranks of one job").
void write_rank_comparison_text(std::ostream& o, const RankComparison& c, bool full);
nlohmann::json rank_comparison_json(const RankComparison& c);

}  // namespace oomscope::snapshot
