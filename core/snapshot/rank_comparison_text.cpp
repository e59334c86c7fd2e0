// The text of a job's ranks (rank_comparison.h): the ranks table, the verdict and the imbalance.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/snapshot/rank_comparison.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::snapshot {

namespace {

constexpr std::size_t kSitesPerRank = 5;  // per rank in the text; the JSON has --top

std::string b(std::int64_t v) { return format_bytes(v); }
std::string b(double v) { return format_bytes(static_cast<std::int64_t>(std::llround(v))); }

std::string signed_bytes(double v) { return (v < 0 ? "-" : "+") + b(std::abs(v)); }

std::string seconds(std::int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(us) / 1e6);
  return buf;
}

void difference_line(std::ostream& o, std::int64_t rank, const RankDifference& d) {
  o << "      " << pad_right(signed_bytes(d.difference()), 12) << "(rank " << rank << " " << b(d.bytes)
    << ", median " << b(d.median) << ")";
  o << "  " << d.name << "\n";
}

std::string categories_from(const RankComparison& c) { return "(" + rank_categories_source(c) + ")"; }

// A column as wide as `least`, or one wider than the longest category label (a user's own may be long).
std::size_t label_width(const RankComparison& c, std::size_t least) {
  std::size_t w = least;
  for (const RankFigures& f : c.ranks)
    for (const CategoryTotal& t : f.categories) w = std::max(w, t.label().size() + 1);
  return w;
}

}  // namespace

std::string rank_categories_source(const RankComparison& c) {
  return (c.rules_path.empty() ? std::string() : "rules of " + c.rules_path + ", then ") +
         "guessed from stacks";
}

void write_rank_comparison_text(std::ostream& o, const RankComparison& c, bool full) {
  const RankGrouping& g = c.grouping;
  o << "== job of " << c.ranks.size() << " ranks: PyTorch allocator snapshots read as one job\n";
  o << "evidence:\n";
  for (const std::string& e : g.evidence) o << "  " << e << "\n";
  if (!g.excluded.empty()) {
    o << "not of this job (left out):\n";
    for (const ExcludedFile& x : g.excluded) o << "  " << x.path << ": " << x.reason << "\n";
  }
  std::int64_t t0 = -1;
  for (const RankFigures& f : c.ranks)
    if (f.first_time_us >= 0 && (t0 < 0 || f.first_time_us < t0)) t0 = f.first_time_us;
  o << "\nRANKS (peaks [derived], OOM [read]; OOM time since the earliest trace entry of any rank)\n";
  o << "  " << pad_right("rank", 6) << pad_right("device", 8) << pad_right("peak allocated", 16)
    << pad_right("peak reserved", 15) << pad_right("capacity", 22) << pad_right("OOM", 46) << "file\n";
  for (const RankFigures& f : c.ranks) {
    std::string cap = "-";
    if (f.capacity)
      cap = b(*f.capacity) + (f.capacity_source == RankCapacitySource::Given ? " (given)" : " (at OOM)");
    std::string oom = "none";
    if (f.oom) {
      oom = b(f.oom->requested) + " request, " + b(f.oom->device_free) + " free";
      if (f.oom->time_us >= 0 && t0 >= 0) oom += ", at " + seconds(f.oom->time_us - t0);
    }
    o << "  " << pad_right(std::to_string(f.rank), 6) << pad_right(std::to_string(f.device), 8)
      << pad_right(b(f.peak_allocated), 16) << pad_right(b(f.peak_reserved), 15) << pad_right(cap, 22)
      << pad_right(oom, 46) << f.path << "\n";
  }
  if (c.ranks.size() > 0 && c.ranks.front().capacity_source != RankCapacitySource::Given &&
      std::any_of(c.ranks.begin(), c.ranks.end(),
                  [](const RankFigures& f) { return f.capacity.has_value(); }))
    o << "  capacity (at OOM) = reserved at the OOM + free on the device [derived]: what this process could "
         "have held; memory of other processes and the CUDA context is not in it\n";
  if (full) {
    const std::size_t width = label_width(c, 16);
    for (const RankFigures& f : c.ranks) {
      o << "\nRANK " << f.rank << " (" << f.named_by << ", device " << f.device << ")\n";
      o << "  at the peak by category " << categories_from(c) << " [derived]:\n";
      for (const CategoryTotal& t : f.categories)
        o << "    " << pad_right(t.label(), width) << pad_right(b(t.bytes), 11) << "x" << t.count << "\n";
      o << "  at the peak by allocation site (innermost user frame) [derived]:\n";
      const std::size_t shown = std::min<std::size_t>(f.top_sites.size(), kSitesPerRank);
      for (std::size_t i = 0; i < shown; ++i)
        o << "    " << pad_right(b(f.top_sites[i].second), 11) << f.top_sites[i].first << "\n";
      if (f.sites.size() > shown) o << "    ... " << f.sites.size() - shown << " more\n";
    }
  }
  const RankVerdict& v = c.verdict;
  o << "\nVERDICT (" << to_string(v.kind) << "): rank " << v.rank << "\n";
  for (const std::string& s : v.sentences) o << "  " << s << "\n";
  o << "  what rank " << v.rank << " holds beyond the median rank, bytes at each rank's peak [derived]:\n";
  if (v.categories.empty() && v.sites.empty()) {
    o << "    nothing: its categories and allocation sites match the median rank's\n";
  } else {
    o << "    by category " << categories_from(c) << ":\n";
    if (v.categories.empty()) o << "      none differs\n";
    for (const RankDifference& d : v.categories) difference_line(o, v.rank, d);
    o << "    by allocation site (innermost user frame), " << v.sites_total << " differ"
      << (v.sites_total == 1 ? "s" : "") << ":\n";
    for (const RankDifference& d : v.sites) difference_line(o, v.rank, d);
    if (v.sites_total > v.sites.size()) o << "      ... " << v.sites_total - v.sites.size() << " more\n";
  }
  o << "\nIMBALANCE (max / median over the ranks, at each rank's peak) [derived]\n";
  const std::size_t width = label_width(c, 18);
  ranks::write_imbalance_line(o, c.peak_allocated, width);
  ranks::write_imbalance_line(o, c.peak_reserved, width);
  for (const Imbalance& im : c.categories) ranks::write_imbalance_line(o, im, width);
}

}  // namespace oomscope::snapshot
