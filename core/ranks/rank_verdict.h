#pragma once
// The verdict on the ranks of one job, shared by the per-rank snapshots, the per-rank Kineto traces and a
// live recording's ranks: the rank that ran out first by the clock, else the one that came closest to its
// capacity, else the one with the highest peak; with the sentences that say why. Each reader gives one
// RankStanding per rank (in rank order) and the words for its format; what is compared and how ties go is
// here, once.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::ranks {

enum class VerdictCase : std::uint8_t { Oom, ClosestToCapacity, HighestReservedPeak };
inline constexpr EnumName<VerdictCase> kVerdictCaseNames[] = {
    {VerdictCase::Oom, "oom"},
    {VerdictCase::ClosestToCapacity, "closest-to-capacity"},
    {VerdictCase::HighestReservedPeak, "highest-reserved-peak"}};
static_assert(names_every_value(kVerdictCaseNames, VerdictCase::HighestReservedPeak));
const char* to_string(VerdictCase c) noexcept;

struct RankStanding {  // what the verdict weighs of one rank
  std::int64_t rank = 0;
  std::optional<double> oom_time;        // the first OOM, in the reader's clock; none without an OOM
  std::int64_t held = 0;                 // the bytes judged against the capacity (the reserved peak)
  std::optional<std::int64_t> capacity;  // none when not known
  std::string held_name = "reserved peak";
};

// The standings with an OOM, earliest first (a tie keeps the order given: the lower rank first).
std::vector<std::size_t> ooms_by_time(const std::vector<RankStanding>& ranks);
// Among `among` (indices into ranks), the one whose held bytes are the largest share of its capacity;
// ranks without a capacity come after those with one, by bytes; a tie goes to the first given.
std::size_t closest_to_capacity(const std::vector<RankStanding>& ranks,
                                const std::vector<std::size_t>& among);
// The one with the most held bytes (the first given on a tie).
std::size_t highest_held(const std::vector<RankStanding>& ranks);

// The format's words in the verdict's sentences.
struct VerdictWords {
  std::string only_oom;       // "whose snapshot records an OOM": after "the only one of N ranks"
  std::string no_oom;         // "no snapshot records an OOM"
  std::string no_capacity;    // why some capacity is unknown: "a snapshot without one does not record ..."
  std::string named_closest;  // after "named: rank N": ", whose reserved peak came closest to its capacity"
  std::string highest_gap = " ";  // between "the highest reserved peak" and its bytes
};

struct VerdictChoice {
  std::size_t chosen = 0;  // index into the standings
  VerdictCase kind = VerdictCase::Oom;
  std::vector<std::int64_t> oom_ranks;    // in the order given
  std::optional<bool> clocks_comparable;  // only with several OOMs
  std::vector<std::string> sentences;
};

// The verdict over ranks (at least one). clocks_problem: with several OOMs, why their times do not compare
// ("rank 2's OOM entry has no time"), empty when they do.
VerdictChoice choose_verdict(const std::vector<RankStanding>& ranks, const std::string& clocks_problem,
                             const VerdictWords& words);

// Ranks in a sentence: "2", "0 and 2", "0, 1 and 3".
std::string rank_list(const std::vector<std::int64_t>& ranks);
// The verdict's sentence when two or more ranks ran out and their clocks compare: `first` ran out `gap_ms`
// before `next`.
std::string first_oom_sentence(std::int64_t first, std::int64_t next, double gap_ms);
// "81.3 %" of whole (0.0 % when whole is not positive).
std::string percent_of(std::int64_t part, std::int64_t whole);

}  // namespace oomscope::ranks
