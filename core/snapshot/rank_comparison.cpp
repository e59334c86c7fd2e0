#include "core/snapshot/rank_comparison.h"

#include <algorithm>
#include <cmath>

#include "core/snapshot/peak_sites.h"
#include "core/util/bytes.h"

namespace oomscope::snapshot {

const char* to_string(VerdictCase c) noexcept { return enum_name(kVerdictCaseNames, c, "?"); }

double median_of(std::vector<std::int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n % 2) return static_cast<double>(v[n / 2]);
  return (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

namespace {

constexpr std::int64_t kWallClockUs = 1'000'000'000'000'000;  // 2001-09-09 in microseconds since 1970

RankFigures figures_of(const Snapshot& snap, const RankMember& m, std::optional<std::int64_t> capacity,
                       std::size_t top) {
  RankFigures f;
  f.rank = m.rank;
  f.path = snap.path;
  f.named_by = m.named_by;
  f.device = m.device;
  const SnapshotReport r = analyse_snapshot(snap, top);
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

std::int64_t category_bytes(const RankFigures& f, Category c) {
  for (const CategoryTotal& t : f.categories)
    if (t.category == c) return t.bytes;
  return 0;
}

Imbalance imbalance_of(std::string name, const std::vector<RankFigures>& ranks,
                       std::int64_t (*value)(const RankFigures&, int), int arg) {
  Imbalance im;
  im.name = std::move(name);
  std::vector<std::int64_t> v;
  for (const RankFigures& f : ranks) {
    const std::int64_t x = value(f, arg);
    if (v.empty() || x > im.max_bytes) im.max_bytes = x, im.max_rank = f.rank;
    v.push_back(x);
  }
  im.median = median_of(v);
  if (im.median > 0) im.ratio = static_cast<double>(im.max_bytes) / im.median;
  return im;
}

std::string fraction(std::int64_t part, std::int64_t whole) {
  const double pct = whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", pct);
  return buf;
}

// The rank whose reserved peak is the largest share of its capacity; ranks without a capacity come after
// those with one, by bytes. Ties go to the lower rank (the first given; ranks are in order).
const RankFigures* closest_to_capacity(const std::vector<const RankFigures*>& among) {
  const auto key = [](const RankFigures* f) {
    const double share = f->capacity && *f->capacity > 0
                             ? static_cast<double>(f->peak_reserved) / static_cast<double>(*f->capacity)
                             : -1.0;
    return std::pair(share, f->peak_reserved);
  };
  const RankFigures* best = nullptr;
  for (const RankFigures* f : among)
    if (!best || key(f) > key(best)) best = f;
  return best;
}

void decide(RankComparison& c) {
  RankVerdict& v = c.verdict;
  std::vector<const RankFigures*> oom;
  for (const RankFigures& f : c.ranks)
    if (f.oom) oom.push_back(&f), v.oom_ranks.push_back(f.rank);
  const RankFigures* chosen = nullptr;
  if (oom.size() == 1) {
    chosen = oom.front();
    v.kind = VerdictCase::Oom;
    v.sentences.push_back("rank " + std::to_string(chosen->rank) + " ran out of memory, the only one of " +
                          std::to_string(c.ranks.size()) + " ranks whose snapshot records an OOM [read]");
  } else if (oom.size() > 1) {
    v.kind = VerdictCase::Oom;
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
    v.clocks_comparable = why.empty();
    v.sentences.push_back("ranks " + rank_list(v.oom_ranks) + " ran out of memory [read]");
    if (why.empty()) {
      std::vector<const RankFigures*> by_time = oom;
      std::stable_sort(by_time.begin(), by_time.end(), [](const RankFigures* a, const RankFigures* b) {
        return a->oom->time_us < b->oom->time_us;
      });
      chosen = by_time[0];
      const RankFigures& next = *by_time[1];
      const double gap_ms = static_cast<double>(next.oom->time_us - chosen->oom->time_us) / 1000.0;
      v.sentences.push_back(first_oom_sentence(chosen->rank, next.rank, gap_ms));
    } else {
      chosen = closest_to_capacity(oom);
      v.sentences.push_back("which ran out first cannot be told: " + why + "; named: rank " +
                            std::to_string(chosen->rank) +
                            ", whose reserved peak came closest to its capacity [derived]");
    }
  } else {
    std::vector<const RankFigures*> all;
    bool capacities = true;
    for (const RankFigures& f : c.ranks) all.push_back(&f), capacities = capacities && f.capacity.has_value();
    chosen = closest_to_capacity(all);
    if (capacities) {
      v.kind = VerdictCase::ClosestToCapacity;
      v.sentences.push_back("no snapshot records an OOM [read]; rank " + std::to_string(chosen->rank) +
                            " came closest to its capacity: reserved peak " +
                            format_bytes(chosen->peak_reserved) + " of " + format_bytes(*chosen->capacity) +
                            " (" + fraction(chosen->peak_reserved, *chosen->capacity) + ") [derived]");
    } else {
      v.kind = VerdictCase::HighestReservedPeak;
      v.sentences.push_back(
          "no snapshot records an OOM [read], and a snapshot without one does not record its "
          "device's capacity: rank " +
          std::to_string(chosen->rank) + " has the highest reserved peak, " +
          format_bytes(chosen->peak_reserved) +
          " [derived]; give --capacity to rank them by closeness to capacity");
    }
  }
  v.rank = chosen->rank;
  if (chosen->oom)
    v.sentences.push_back("rank " + std::to_string(chosen->rank) + ": a " +
                          format_bytes(chosen->oom->requested) + " request failed with " +
                          format_bytes(chosen->oom->device_free) + " free on the device, " +
                          format_bytes(chosen->oom->reserved) + " reserved, at trace entry " +
                          std::to_string(chosen->oom->trace_index) + " [read]");
  // What the chosen rank holds beyond the median rank.
  for (int k = 0; k < kCategoryCount; ++k) {
    const auto cat = static_cast<Category>(k);
    std::vector<std::int64_t> vals;
    for (const RankFigures& f : c.ranks) vals.push_back(category_bytes(f, cat));
    RankDifference d{to_string(cat), category_bytes(*chosen, cat), median_of(vals)};
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
                             std::size_t top) {
  RankComparison c;
  c.grouping = grouping;
  for (const RankMember& m : grouping.members)
    c.ranks.push_back(figures_of(*snaps.at(m.input), m, capacity, top));
  if (c.ranks.empty()) return c;
  decide(c);
  if (c.verdict.sites.size() > top) c.verdict.sites.resize(top);
  c.peak_allocated = imbalance_of(
      "peak allocated", c.ranks, [](const RankFigures& f, int) { return f.peak_allocated; }, 0);
  c.peak_reserved = imbalance_of(
      "peak reserved", c.ranks, [](const RankFigures& f, int) { return f.peak_reserved; }, 0);
  for (int k = 0; k < kCategoryCount; ++k) {
    Imbalance im = imbalance_of(
        to_string(static_cast<Category>(k)), c.ranks,
        [](const RankFigures& f, int cat) { return category_bytes(f, static_cast<Category>(cat)); }, k);
    if (im.max_bytes > 0) c.categories.push_back(std::move(im));
  }
  return c;
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

}  // namespace oomscope::snapshot
