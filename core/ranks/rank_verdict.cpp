#include "core/ranks/rank_verdict.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/util/bytes.h"

namespace oomscope::ranks {

const char* to_string(VerdictCase c) noexcept { return enum_name(kVerdictCaseNames, c, "?"); }

std::vector<std::size_t> ooms_by_time(const std::vector<RankStanding>& ranks) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].oom_time) out.push_back(i);
  std::stable_sort(out.begin(), out.end(),
                   [&](std::size_t a, std::size_t b) { return *ranks[a].oom_time < *ranks[b].oom_time; });
  return out;
}

std::size_t closest_to_capacity(const std::vector<RankStanding>& ranks,
                                const std::vector<std::size_t>& among) {
  const auto key = [&](std::size_t i) {
    const RankStanding& r = ranks[i];
    const double share =
        r.capacity && *r.capacity > 0 ? static_cast<double>(r.held) / static_cast<double>(*r.capacity) : -1.0;
    return std::pair(share, r.held);
  };
  std::size_t best = among.front();
  for (const std::size_t i : among)
    if (key(i) > key(best)) best = i;
  return best;
}

std::size_t highest_held(const std::vector<RankStanding>& ranks) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i].held > ranks[best].held) best = i;
  return best;
}

VerdictChoice choose_verdict(const std::vector<RankStanding>& ranks, const std::string& clocks_problem,
                             const VerdictWords& words) {
  VerdictChoice v;
  std::vector<std::size_t> oom;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].oom_time) oom.push_back(i), v.oom_ranks.push_back(ranks[i].rank);
  const auto rank_of = [&](std::size_t i) { return std::to_string(ranks[i].rank); };
  if (oom.size() == 1) {
    v.chosen = oom.front();
    v.kind = VerdictCase::Oom;
    v.sentences.push_back("rank " + rank_of(v.chosen) + " ran out of memory, the only one of " +
                          std::to_string(ranks.size()) + " ranks " + words.only_oom + " [read]");
  } else if (oom.size() > 1) {
    v.kind = VerdictCase::Oom;
    v.clocks_comparable = clocks_problem.empty();
    v.sentences.push_back("ranks " + rank_list(v.oom_ranks) + " ran out of memory [read]");
    if (clocks_problem.empty()) {
      const std::vector<std::size_t> by_time = ooms_by_time(ranks);
      v.chosen = by_time[0];
      const std::size_t next = by_time[1];
      const double gap_ms = (*ranks[next].oom_time - *ranks[v.chosen].oom_time) / 1000.0;
      v.sentences.push_back(first_oom_sentence(ranks[v.chosen].rank, ranks[next].rank, gap_ms));
    } else {
      v.chosen = closest_to_capacity(ranks, oom);
      v.sentences.push_back("which ran out first cannot be told: " + clocks_problem + "; named: rank " +
                            rank_of(v.chosen) + words.named_closest + " [derived]");
    }
  } else {
    std::vector<std::size_t> all;
    bool capacities = true;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      all.push_back(i), capacities = capacities && ranks[i].capacity.has_value();
    if (capacities) {
      v.chosen = closest_to_capacity(ranks, all);
      const RankStanding& c = ranks[v.chosen];
      v.kind = VerdictCase::ClosestToCapacity;
      v.sentences.push_back(words.no_oom + " [read]; rank " + rank_of(v.chosen) +
                            " came closest to its capacity: " + c.held_name + " " + format_bytes(c.held) +
                            " of " + format_bytes(*c.capacity) + " (" + percent_of(c.held, *c.capacity) +
                            ") [derived]");
    } else {
      // Not every rank has a capacity: the largest peak, whatever the capacities of the others.
      v.chosen = highest_held(ranks);
      const RankStanding& c = ranks[v.chosen];
      v.kind = VerdictCase::HighestReservedPeak;
      v.sentences.push_back(words.no_oom + " [read], and " + words.no_capacity + ": rank " +
                            rank_of(v.chosen) + " has the highest " + c.held_name + words.highest_gap +
                            format_bytes(c.held) +
                            " [derived]; give --capacity to rank them by closeness to capacity");
    }
  }
  return v;
}

std::string rank_list(const std::vector<std::int64_t>& r) {
  std::string out;
  for (std::size_t i = 0; i < r.size(); ++i)
    out += (i == 0 ? "" : i + 1 == r.size() ? " and " : ", ") + std::to_string(r[i]);
  return out;
}

std::string first_oom_sentence(std::int64_t first, std::int64_t next, double gap_ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", gap_ms);
  return "rank " + std::to_string(first) + " first, " + buf + " before rank " + std::to_string(next) +
         (gap_ms == 0 ? " (the same microsecond: the lower rank is named)" : "") +
         " [read]; the times are wall-clock microseconds over overlapping spans, so they compare as far as "
         "the hosts' clocks agree";
}

std::string percent_of(std::int64_t part, std::int64_t whole) {
  const double pct = whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", pct);
  return buf;
}

}  // namespace oomscope::ranks
