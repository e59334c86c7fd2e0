// The gap between two recordings as far as they can tell (detail/recording_gap.h).

#include "core/live/client/detail/recording_gap.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/util/bytes.h"

namespace oomscope::live::detail {

namespace {

std::string signed_bytes(std::int64_t delta) {
  if (delta == 0) return "no change";
  return (delta > 0 ? "+" : "-") + format_bytes(delta > 0 ? delta : -delta);
}

// "2 OOM events (ranks 3, 1)" / "no OOM event"; ranks in the verdict's order, earliest first.
std::string ooms_text(const RecordingComparison& c) {
  std::size_t n = 0;
  for (const RecordingRankFigures& f : c.ranks) n += f.ooms.size();
  if (n == 0) return "no OOM event";
  std::string s = std::to_string(n) + (n == 1 ? " OOM event (rank" : " OOM events (rank") +
                  (c.verdict.oom_ranks.size() == 1 ? " " : "s ");
  for (std::size_t i = 0; i < c.verdict.oom_ranks.size(); ++i)
    s += (i ? ", " : "") + std::to_string(c.verdict.oom_ranks[i]);
  return s + ")";
}

}  // namespace

void explain_gap(const RecordingComparison& a, const RecordingComparison& b, RecordingOverlay& o) {
  std::map<int, OverlayRankGap> rows;
  for (const auto& [run, is_a] : {std::pair{&a, true}, std::pair{&b, false}})
    for (const RecordingRankFigures& f : run->ranks) {
      OverlayRankGap& g = rows[f.rank];
      g.rank = f.rank;
      const auto allocated = f.has_allocated ? std::optional(f.peak_allocated) : std::nullopt;
      const auto reserved = f.has_reserved ? std::optional(f.peak_reserved) : std::nullopt;
      (is_a ? g.peak_allocated_a : g.peak_allocated_b) = allocated;
      (is_a ? g.peak_reserved_a : g.peak_reserved_b) = reserved;
      (is_a ? g.ooms_a : g.ooms_b) = static_cast<int>(f.ooms.size());
    }
  o.ranks.clear();
  o.gap.clear();
  for (auto& [rank, g] : rows) {
    o.ranks.push_back(rank);
    o.gap.push_back(g);
  }
  o.sentences.clear();
  o.sentences.push_back("A has " + ooms_text(a) + ", B has " + ooms_text(b) + " [read]");
  o.sentences.push_back("A's verdict: " + a.verdict.sentences.front());
  o.sentences.push_back("B's verdict: " + b.verdict.sentences.front());
  // The rank whose peak allocated moved most between the runs, among those with it in both.
  const OverlayRankGap* most = nullptr;
  auto change = [](const OverlayRankGap& g) { return *g.allocated_change(); };
  for (const OverlayRankGap& g : o.gap)
    if (g.peak_allocated_a && g.peak_allocated_b &&
        (!most || std::llabs(change(g)) > std::llabs(change(*most))))
      most = &g;
  if (most && change(*most) != 0)
    o.sentences.push_back("the largest change of a rank's peak allocated is rank " +
                          std::to_string(most->rank) + "'s: " + format_bytes(*most->peak_allocated_a) +
                          " in A, " + format_bytes(*most->peak_allocated_b) + " in B (" +
                          signed_bytes(change(*most)) + ") [derived]");
  else if (most)
    o.sentences.push_back("every rank in both recordings has the same peak allocated in A and B [derived]");
  for (const OverlayRankGap& g : o.gap) {
    const bool in_a = g.peak_allocated_a || g.peak_reserved_a, in_b = g.peak_allocated_b || g.peak_reserved_b;
    if (in_a != in_b)
      o.sentences.push_back("rank " + std::to_string(g.rank) + " has samples in " + (in_a ? "A" : "B") +
                            " only [read]");
  }
  std::string named;
  for (const auto& [run, label] : {std::pair{&a, "A"}, std::pair{&b, "B"}})
    for (const RecordingRankFigures& f : run->ranks)
      for (const RecordingOom& oom : f.ooms)
        if (!oom.snapshot.empty())
          named += (named.empty() ? "" : "; ") + std::string(label) + " rank " + std::to_string(f.rank) +
                   ": " + oom.snapshot;
  o.sites_note =
      "A recording holds each rank's device totals, not allocation stacks: which allocation sites make the "
      "gap "
      "cannot be told from it.";
  if (!named.empty())
    o.sites_note += " The OOM events name the snapshots their agents wrote (" + named +
                    "); a snapshot holds the stacks of what was live when its rank ran out.";
}

}  // namespace oomscope::live::detail
