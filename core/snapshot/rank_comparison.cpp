#include "core/snapshot/rank_comparison.h"

#include <algorithm>
#include <cmath>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/peak_sites.h"
#include "core/util/bytes.h"

namespace oomscope::snapshot {

namespace {

constexpr std::int64_t kWallClockUs = 1'000'000'000'000'000;  // 2001-09-09 in microseconds since 1970

RankFigures figures_of(const Snapshot& snap, const RankMember& m, std::optional<std::int64_t> capacity,
                       std::size_t top, const CategoryRules* rules) {
  RankFigures f;
  f.rank = m.rank;
  f.path = snap.path;
  f.named_by = m.named_by;
  f.device = m.device;
  const SnapshotReport r = analyse_snapshot(snap, top, rules);
  const DeviceAnalysis* d = main_device(snap, r);
  if (!d) return f;
  f.device = d->device;
  f.peak_allocated = d->timeline.peak_bytes;
  f.peak_index = d->timeline.peak_index;
  f.peak_reserved = d->reserved_peak;
  f.first_time_us = d->first_time_us;
  f.last_time_us = d->last_time_us;
  if (d->oom)
    f.oom =
        RankOom{d->oom->index, d->oom->requested, d->oom->device_free, d->oom->time_us, d->state.reserved};
  if (capacity) {
    f.capacity = capacity;
    f.capacity_source = RankCapacitySource::Given;
  } else if (f.oom) {
    f.capacity = f.oom->reserved + f.oom->device_free;
    f.capacity_source = RankCapacitySource::AtOom;
  }
  f.categories = d->categories_at_peak;
  f.sites = sites_at_peak(snap, d);
  for (const auto& [site, bytes] : f.sites) f.top_sites.emplace_back(site, bytes);
  std::stable_sort(f.top_sites.begin(), f.top_sites.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (f.top_sites.size() > top) f.top_sites.resize(top);
  f.largest.assign(d->at_peak.begin(),
                   d->at_peak.begin() + static_cast<std::ptrdiff_t>(std::min(top, d->at_peak.size())));
  return f;
}

// A category by its label: a built-in name, or a user rule's own name (all of which are Category::Custom).
std::int64_t category_bytes(const RankFigures& f, const std::string& label) {
  for (const CategoryTotal& t : f.categories)
    if (t.label() == label) return t.bytes;
  return 0;
}

// Every category's label in category order, a user's own names where Custom stands, in the order the ranks
// hold them.
std::vector<std::string> category_labels(const std::vector<RankFigures>& job_ranks) {
  std::vector<std::string> labels;
  for (int k = 0; k < kCategoryCount; ++k) {
    const auto cat = static_cast<Category>(k);
    if (cat != Category::Custom) {
      labels.emplace_back(to_string(cat));
      continue;
    }
    for (const RankFigures& f : job_ranks)
      for (const CategoryTotal& t : f.categories)
        if (t.category == Category::Custom && std::find(labels.begin(), labels.end(), t.name) == labels.end())
          labels.push_back(t.name);
  }
  return labels;
}

template <typename Value>
Imbalance imbalance_of(std::string name, const std::vector<RankFigures>& job_ranks, const Value& value) {
  std::vector<ranks::RankValue> values;
  values.reserve(job_ranks.size());
  for (const RankFigures& f : job_ranks) values.push_back({f.rank, value(f)});
  return ranks::imbalance_of(std::move(name), values);
}

// The clocks of several OOM ranks compare when each OOM entry has a wall-clock time and the ranks' recorded
// spans overlap; else why not.
std::string clocks_problem(const std::vector<const RankFigures*>& oom) {
  std::string why;
  std::int64_t lo = 0, hi = 0;
  for (std::size_t i = 0; i < oom.size(); ++i) {
    const RankFigures& f = *oom[i];
    if (f.oom->time_us < 0)
      why = "rank " + std::to_string(f.rank) + "'s OOM entry has no time";
    else if (f.oom->time_us < kWallClockUs)
      why = "rank " + std::to_string(f.rank) + "'s times are not wall-clock microseconds";
    const std::int64_t first = f.first_time_us < 0 ? f.oom->time_us : f.first_time_us;
    lo = i ? std::max(lo, first) : first;
    hi = i ? std::min(hi, f.oom->time_us) : f.oom->time_us;
  }
  if (why.empty() && lo > hi) why = "the ranks' recorded spans do not overlap in time";
  return why;
}

void decide(RankComparison& c) {
  RankVerdict& v = c.verdict;
  std::vector<const RankFigures*> oom;
  std::vector<ranks::RankStanding> standings;
  for (const RankFigures& f : c.ranks) {
    if (f.oom) oom.push_back(&f);
    ranks::RankStanding s{f.rank, std::nullopt, f.peak_reserved, f.capacity};
    if (f.oom) s.oom_time = static_cast<double>(f.oom->time_us);
    standings.push_back(std::move(s));
  }
  static const ranks::VerdictWords kWords{"whose snapshot records an OOM", "no snapshot records an OOM",
                                          "a snapshot without one does not record its device's capacity",
                                          ", whose reserved peak came closest to its capacity", ", "};
  ranks::VerdictChoice choice =
      ranks::choose_verdict(standings, oom.size() > 1 ? clocks_problem(oom) : std::string(), kWords);
  const RankFigures* chosen = &c.ranks[choice.chosen];
  v.kind = choice.kind;
  v.oom_ranks = std::move(choice.oom_ranks);
  v.clocks_comparable = choice.clocks_comparable;
  v.sentences = std::move(choice.sentences);
  v.rank = chosen->rank;
  if (chosen->oom)
    v.sentences.push_back("rank " + std::to_string(chosen->rank) + ": a " +
                          format_bytes(chosen->oom->requested) + " request failed with " +
                          format_bytes(chosen->oom->device_free) + " free on the device, " +
                          format_bytes(chosen->oom->reserved) + " reserved, at trace entry " +
                          std::to_string(chosen->oom->trace_index) + " [read]");
  // What the chosen rank holds beyond the median rank.
  for (const std::string& label : category_labels(c.ranks)) {
    std::vector<std::int64_t> vals;
    for (const RankFigures& f : c.ranks) vals.push_back(category_bytes(f, label));
    RankDifference d{label, category_bytes(*chosen, label), median_of(vals)};
    if (d.difference() != 0) v.categories.push_back(std::move(d));
  }
  std::map<std::string, bool> names;
  for (const RankFigures& f : c.ranks)
    for (const auto& [site, bytes] : f.sites) names[site] = true;
  for (const auto& [site, unused] : names) {
    std::vector<std::int64_t> vals;
    for (const RankFigures& f : c.ranks) {
      const auto it = f.sites.find(site);
      vals.push_back(it == f.sites.end() ? 0 : it->second);
    }
    const auto it = chosen->sites.find(site);
    RankDifference d{site, it == chosen->sites.end() ? 0 : it->second, median_of(vals)};
    if (d.difference() != 0) v.sites.push_back(std::move(d));
  }
  const auto by_size = [](const RankDifference& a, const RankDifference& b) {
    return std::abs(a.difference()) > std::abs(b.difference());
  };
  std::stable_sort(v.categories.begin(), v.categories.end(), by_size);
  std::stable_sort(v.sites.begin(), v.sites.end(), by_size);
  v.sites_total = v.sites.size();
}

}  // namespace

RankComparison compare_ranks(const std::vector<std::shared_ptr<const Snapshot>>& snaps,
                             const RankGrouping& grouping, std::optional<std::int64_t> capacity,
                             std::size_t top, const CategoryRules* rules) {
  RankComparison c;
  c.grouping = grouping;
  if (rules) c.rules_path = rules->path();
  for (const RankMember& m : grouping.members)
    c.ranks.push_back(figures_of(*snaps.at(m.input), m, capacity, top, rules));
  if (c.ranks.empty()) return c;
  decide(c);
  if (c.verdict.sites.size() > top) c.verdict.sites.resize(top);
  c.peak_allocated =
      imbalance_of("peak allocated", c.ranks, [](const RankFigures& f) { return f.peak_allocated; });
  c.peak_reserved =
      imbalance_of("peak reserved", c.ranks, [](const RankFigures& f) { return f.peak_reserved; });
  for (const std::string& label : category_labels(c.ranks)) {
    Imbalance im =
        imbalance_of(label, c.ranks, [&label](const RankFigures& f) { return category_bytes(f, label); });
    if (im.max_bytes > 0) c.categories.push_back(std::move(im));
  }
  return c;
}

}  // namespace oomscope::snapshot
