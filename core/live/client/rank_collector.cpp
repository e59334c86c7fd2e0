// Each rank's figures collected, and the verdict and imbalance over them (detail/rank_collector.h).

#include "core/live/client/detail/rank_collector.h"

#include <algorithm>
#include <cstdio>

#include "core/ranks/rank_imbalance.h"
#include "core/ranks/rank_verdict.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::live::detail {

void RankCollector::on_hello(int rank, const Hello& h) {
  RecordingRankFigures& f = at(rank);
  f.hello_rank = h.rank;
  f.host = h.host;
  f.backend = h.backend;
  f.device = h.device;
  if (h.total_bytes > 0) {
    f.capacity = h.total_bytes;
    f.capacity_from = "hello total_bytes";
  }
}

void RankCollector::on_sample(int rank, const Sample& s) {
  RecordingRankFigures& f = at(rank);
  ++f.samples;
  if (f.first_t < 0 || s.t < f.first_t) f.first_t = s.t;
  f.last_t = std::max(f.last_t, s.t);
  if (s.has(Field::Step)) last_step_[rank] = s.get(Field::Step);
  for (Field a : {Field::Allocated, Field::PeakAllocated})
    if (s.has(a) && (!f.has_allocated || s.get(a) > f.peak_allocated)) {
      f.has_allocated = true;
      f.peak_allocated = s.get(a);
      f.peak_allocated_t = s.t;
    }
  if (s.has(Field::Reserved) && (!f.has_reserved || s.get(Field::Reserved) > f.peak_reserved)) {
    f.has_reserved = true;
    f.peak_reserved = s.get(Field::Reserved);
    f.peak_reserved_t = s.t;
  }
  if (s.has(Field::Driver)) f.peak_driver = std::max(f.peak_driver.value_or(0), s.get(Field::Driver));
  if (f.capacity_from != "hello total_bytes" && s.has(Field::RecommendedMax) &&
      s.get(Field::RecommendedMax) > f.capacity.value_or(0)) {
    f.capacity = s.get(Field::RecommendedMax);
    f.capacity_from = "recommended_max";
  }
  // The headroom of this sample, as store.h's Headroom reads the latest one.
  const std::int64_t capacity =
      f.capacity_from == "hello total_bytes" ? *f.capacity : s.get(Field::RecommendedMax, 0);
  if (capacity <= 0) return;
  for (Field u : {Field::DeviceUsed, Field::Driver, Field::Reserved}) {
    if (!s.has(u)) continue;
    if (!f.tightest || capacity - s.get(u) < f.tightest->headroom()) {
      RecordingTightest t;
      t.t = s.t;
      if (s.has(Field::Step)) t.step = s.get(Field::Step);
      t.capacity = capacity;
      t.used = s.get(u);
      t.used_field = field_name(u);
      f.tightest = t;
    }
    break;
  }
}

void RankCollector::on_event(int rank, const Event& e) {
  if (e.kind != "oom") return;
  RecordingOom o;
  o.t = e.t;
  o.step_from_event = e.step.has_value();
  if (e.step)
    o.step = e.step;
  else if (auto it = last_step_.find(rank); it != last_step_.end())
    o.step = it->second;
  o.requested = requested_bytes_in(e.message);
  o.message = e.message;
  o.snapshot = e.path;
  at(rank).ooms.push_back(std::move(o));
}

std::vector<RecordingRankFigures> RankCollector::take() && {
  std::vector<RecordingRankFigures> out;
  for (auto& [rank, f] : ranks_)
    if (f.samples > 0) out.push_back(std::move(f));
  return out;
}

RecordingRankFigures& RankCollector::at(int rank) {
  RecordingRankFigures& f = ranks_[rank];
  f.rank = rank;
  return f;
}

namespace {

RecordingImbalance imbalance(const std::vector<RecordingRankFigures>& ranks, const char* name,
                             std::int64_t RecordingRankFigures::*figure) {
  std::vector<oomscope::ranks::RankValue> values;
  values.reserve(ranks.size());
  for (const RecordingRankFigures& f : ranks) values.push_back({f.rank, f.*figure});
  const oomscope::ranks::Imbalance shared = oomscope::ranks::imbalance_of(name, values);
  RecordingImbalance im;
  im.name = shared.name;
  im.max_bytes = shared.max_bytes;
  im.max_rank = static_cast<int>(shared.max_rank);
  im.median = shared.median;
  im.ratio = shared.ratio;
  return im;
}

std::string seconds(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

const std::string& ranks_host(const std::vector<RecordingRankFigures>& ranks, int rank) {
  static const std::string kNone;
  for (const RecordingRankFigures& f : ranks)
    if (f.rank == rank) return f.host;
  return kNone;
}

// `by_hello`: name every rank by its hello rank (each rank has one of its own), else by its index.
RecordingVerdict verdict_of(const std::vector<RecordingRankFigures>& ranks, std::int64_t t0, bool by_hello) {
  const auto name = [&](int index) {
    for (const RecordingRankFigures& f : ranks)
      if (f.rank == index && by_hello && f.hello_rank) return *f.hello_rank;
    return index;
  };
  RecordingVerdict v;
  // The first OOM of each rank, as ns since t0 (exact in a double for 104 days), earliest first.
  std::vector<oomscope::ranks::RankStanding> standings;
  for (const RecordingRankFigures& f : ranks) {
    oomscope::ranks::RankStanding s{f.rank, std::nullopt, f.peak_reserved, std::nullopt};
    if (!f.ooms.empty()) {
      std::int64_t first = f.ooms.front().t;
      for (const RecordingOom& o : f.ooms) first = std::min(first, o.t);
      s.oom_time = static_cast<double>(first - t0);
    }
    standings.push_back(std::move(s));
  }
  std::vector<std::pair<std::int64_t, int>> firsts;  // first OOM time, rank
  for (const std::size_t i : oomscope::ranks::ooms_by_time(standings))
    firsts.emplace_back(static_cast<std::int64_t>(*standings[i].oom_time) + t0, ranks[i].rank);
  for (const auto& [t, r] : firsts) v.oom_ranks.push_back(name(r));
  if (!firsts.empty()) {
    v.kind = oomscope::ranks::to_string(oomscope::ranks::VerdictCase::Oom);
    v.rank = name(firsts.front().second);
    std::string s = "rank " + std::to_string(v.rank) + " ran out first: its OOM event at " +
                    seconds(firsts.front().first - t0) + " [read] is the earliest";
    if (firsts.size() == 1)
      s += ", and no other rank has one";
    else {
      bool one_host = true;
      for (const auto& [t, r] : firsts) {
        const auto& h = ranks_host(ranks, r);
        one_host = one_host && !h.empty() && h == ranks_host(ranks, firsts.front().second);
      }
      v.clocks_comparable = one_host;
      s += ", " + seconds(firsts[1].first - firsts.front().first) + " before rank " +
           std::to_string(name(firsts[1].second)) + "'s" +
           (one_host ? " (the ranks with an OOM are all on host " + ranks_host(ranks, firsts.front().second) +
                           ": one clock)"
                     : " (stamped on different hosts: the order holds as far as their clocks agree)");
    }
    v.sentences.push_back(s);
    return v;
  }
  // The closest to capacity by the tightest sample's used / capacity (the least headroom), among the ranks
  // with one.
  std::vector<oomscope::ranks::RankStanding> closeness;
  std::vector<std::size_t> with_capacity;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RecordingRankFigures& f = ranks[i];
    closeness.push_back({f.rank, std::nullopt, f.tightest ? f.tightest->used : 0,
                         f.tightest ? std::optional(f.tightest->capacity) : std::nullopt});
    if (f.tightest) with_capacity.push_back(i);
  }
  const RecordingRankFigures* closest =
      with_capacity.empty() ? nullptr
                            : &ranks[oomscope::ranks::closest_to_capacity(closeness, with_capacity)];
  if (closest) {
    const RecordingTightest& t = *closest->tightest;
    v.kind = oomscope::ranks::to_string(oomscope::ranks::VerdictCase::ClosestToCapacity);
    v.rank = name(closest->rank);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * t.fraction());
    v.sentences.push_back("no rank has an OOM event; rank " + std::to_string(v.rank) +
                          " came closest to its capacity: headroom " + format_bytes(t.headroom()) + " (" +
                          pct + " of " + format_bytes(t.capacity) + ", " + t.used_field + " " +
                          format_bytes(t.used) + ") at " + seconds(t.t - t0) + " [derived]");
    return v;
  }
  const RecordingRankFigures* highest = &ranks[oomscope::ranks::highest_held(standings)];
  v.kind = oomscope::ranks::to_string(oomscope::ranks::VerdictCase::HighestReservedPeak);
  v.rank = name(highest->rank);
  v.sentences.push_back("no rank has an OOM event or a known capacity; rank " + std::to_string(v.rank) +
                        " has the highest reserved peak, " + format_bytes(highest->peak_reserved) +
                        " [derived]");
  return v;
}

}  // namespace

RecordingComparison finish_comparison(const std::string& subject, const std::string& holder,
                                      std::vector<RecordingRankFigures> ranks) {
  RecordingComparison c;
  c.path = subject;
  c.ranks = std::move(ranks);
  if (c.ranks.empty())
    throw Error(ErrorKind::Empty, subject, holder + " holds no sample of any rank: nothing to compare");
  c.t0 = c.ranks.front().first_t;
  for (const RecordingRankFigures& f : c.ranks) c.t0 = std::min(c.t0, f.first_t);
  c.verdict = verdict_of(c.ranks, c.t0, false);
  if (hello_ranks_unique(c.ranks)) c.verdict_by_hello_rank = verdict_of(c.ranks, c.t0, true);
  c.peak_allocated = imbalance(c.ranks, "peak_allocated", &RecordingRankFigures::peak_allocated);
  c.peak_reserved = imbalance(c.ranks, "peak_reserved", &RecordingRankFigures::peak_reserved);
  return c;
}

}  // namespace oomscope::live::detail
