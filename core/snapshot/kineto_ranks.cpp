#include "core/snapshot/kineto_ranks.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

constexpr double kWallClockUs = 1e15;  // 2001-09-09 in microseconds since 1970

KinetoRank figures_of(const KinetoTrace& t, std::int64_t rank, std::string named_by,
                      std::optional<std::int64_t> capacity) {
  KinetoRank r;
  r.rank = rank;
  r.path = t.path;
  r.named_by = std::move(named_by);
  if (t.distributed) r.world_size = t.distributed->world_size;
  for (const KinetoStep& s : t.steps) r.steps.push_back(s.step);
  const KinetoDevice* d = rank_device(t);
  if (!d) return r;
  r.device = d->label;
  r.device_id = d->device_id;
  r.memory_events = d->allocs + d->frees;
  r.peak_allocated_read = d->max_total_allocated >= 0;
  r.peak_allocated = r.peak_allocated_read ? d->max_total_allocated : d->peak_live;
  r.peak_ts_us = d->peak_ts_us;
  if (r.peak_allocated_read)
    for (const KinetoPoint& p : d->series)
      if (p.live_bytes == d->max_total_allocated) {
        r.peak_ts_us = p.ts_us;
        break;
      }
  if (d->max_total_reserved >= 0) r.peak_reserved = d->max_total_reserved;
  r.ooms = d->ooms;
  r.first_ts_us = d->first_ts_us;
  r.last_ts_us = d->last_ts_us;
  if (capacity) {
    r.capacity = capacity;
    r.capacity_source = KinetoCapacitySource::Given;
  } else if (d->device_type != 0) {
    for (const KinetoGpu& g : t.gpu_props)
      if (g.id == d->device_id && g.total_global_mem > 0) {
        r.capacity = g.total_global_mem;
        r.capacity_source = KinetoCapacitySource::DeviceProperties;
      }
  }
  return r;
}

// The figure the closeness to capacity is judged by: the reserved peak, or the allocated one where the
// trace has no Total Reserved.
std::int64_t held(const KinetoRank& r) { return r.peak_reserved.value_or(r.peak_allocated); }

Imbalance imbalance_of(std::string name, const std::vector<KinetoRank>& job_ranks,
                       std::int64_t (*value)(const KinetoRank&)) {
  std::vector<ranks::RankValue> values;
  values.reserve(job_ranks.size());
  for (const KinetoRank& r : job_ranks) values.push_back({r.rank, value(r)});
  return ranks::imbalance_of(std::move(name), values);
}

// The first OOMs of several ranks compare when they are wall-clock microseconds and the traces overlap in
// time; else why not.
std::string clocks_problem(const std::vector<const KinetoRank*>& oom) {
  std::string why;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < oom.size(); ++i) {
    const KinetoRank& r = *oom[i];
    const double at = r.ooms.front().ts_us;
    if (at < kWallClockUs)
      why = "rank " + std::to_string(r.rank) + "'s times are not wall-clock microseconds";
    const double first = r.memory_events ? std::min(r.first_ts_us, at) : at;
    lo = i ? std::max(lo, first) : first;
    hi = i ? std::min(hi, at) : at;
  }
  if (why.empty() && lo > hi) why = "the ranks' traces do not overlap in time";
  return why;
}

void decide(KinetoRankJob& j) {
  RankVerdict& v = j.verdict;
  std::vector<const KinetoRank*> oom;
  std::vector<ranks::RankStanding> standings;
  for (const KinetoRank& r : j.ranks) {
    if (!r.ooms.empty()) oom.push_back(&r);
    ranks::RankStanding s{r.rank, std::nullopt, held(r), r.capacity,
                          r.peak_reserved ? "reserved peak" : "allocated peak (no Total Reserved)"};
    if (!r.ooms.empty()) s.oom_time = r.ooms.front().ts_us;
    standings.push_back(std::move(s));
  }
  static const ranks::VerdictWords kWords{"whose trace has an [OutOfMemory] event",
                                          "no trace has an [OutOfMemory] event",
                                          "not every rank's device has a totalGlobalMem in deviceProperties",
                                          ", which came closest to its capacity", " "};
  ranks::VerdictChoice choice =
      ranks::choose_verdict(standings, oom.size() > 1 ? clocks_problem(oom) : std::string(), kWords);
  const KinetoRank* chosen = &j.ranks[choice.chosen];
  v.kind = choice.kind;
  v.oom_ranks = std::move(choice.oom_ranks);
  v.clocks_comparable = choice.clocks_comparable;
  v.sentences = std::move(choice.sentences);
  v.rank = chosen->rank;
  if (!chosen->ooms.empty()) {
    const KinetoOom& o = chosen->ooms.front();
    std::string s = "rank " + std::to_string(chosen->rank) + ": a " + format_bytes(o.requested) +
                    " request failed on " + chosen->device;
    if (o.total_reserved >= 0) s += " with " + format_bytes(o.total_reserved) + " reserved";
    if (o.total_allocated >= 0)
      s += (o.total_reserved >= 0 ? " and " : " with ") + format_bytes(o.total_allocated) + " allocated";
    v.sentences.push_back(s + " [read]; the event does not record the device's free memory");
  }
  std::vector<std::int64_t> peaks;
  for (const KinetoRank& r : j.ranks) peaks.push_back(r.peak_allocated);
  v.sentences.push_back("a Kineto [memory] event records no stack and no category, so what rank " +
                        std::to_string(chosen->rank) +
                        " holds beyond the median rank is told by its peaks only: allocated peak " +
                        format_bytes(chosen->peak_allocated) + ", median " +
                        format_bytes(static_cast<std::int64_t>(median_of(peaks))) + " [derived]");
}

}  // namespace

const KinetoDevice* rank_device(const KinetoTrace& t) {
  const KinetoDevice* best = nullptr;
  for (const KinetoDevice& d : t.devices) {
    if (d.device_type == 0) continue;
    if (!best || d.allocs + d.frees > best->allocs + best->frees ||
        (d.allocs + d.frees == best->allocs + best->frees && d.device_id < best->device_id))
      best = &d;
  }
  if (!best && !t.devices.empty()) best = &t.devices.front();
  return best;
}

KinetoRankJob compare_kineto_ranks(const std::vector<std::shared_ptr<const KinetoTrace>>& traces,
                                   std::optional<std::int64_t> capacity) {
  KinetoRankJob j;
  std::map<std::int64_t, std::size_t> claimed;  // rank -> index into j.ranks
  std::map<std::int64_t, std::size_t> world_sizes;
  std::size_t by_info = 0;
  std::vector<std::string> paths;
  for (const auto& t : traces) paths.push_back(t->path);
  const std::string shared = shared_folder(paths);
  for (const auto& t : traces) {
    // distributedInfo's rank first, else a rank number in the file or folder name.
    std::int64_t rank = -1;
    std::string named_by;
    if (t->distributed && t->distributed->rank >= 0 && t->distributed->world_size >= 0 &&
        t->distributed->rank >= t->distributed->world_size) {
      j.excluded.push_back({t->path, "its distributedInfo.rank " + std::to_string(t->distributed->rank) +
                                         " is not below its world_size " +
                                         std::to_string(t->distributed->world_size) +
                                         ": not a rank of that job"});
      continue;
    }
    if (t->distributed && t->distributed->rank >= 0) {
      rank = t->distributed->rank;
      named_by = "distributedInfo.rank";
      ++by_info;
    } else if (const std::optional<RankInName> n = rank_in_name(t->path, shared)) {
      rank = n->rank;
      named_by = n->where;
    } else {
      j.excluded.push_back({t->path, "neither its distributedInfo nor its name gives a rank number"});
      continue;
    }
    if (const auto it = claimed.find(rank); it != claimed.end())
      throw Error(ErrorKind::InvalidArgument, t->path,
                  "claims rank " + std::to_string(rank) + " (" + named_by + "), as " +
                      j.ranks[it->second].path + " does: give one trace per rank");
    claimed[rank] = j.ranks.size();
    j.ranks.push_back(figures_of(*t, rank, named_by, capacity));
    if (j.ranks.back().world_size >= 0) ++world_sizes[j.ranks.back().world_size];
  }
  std::sort(j.ranks.begin(), j.ranks.end(),
            [](const KinetoRank& a, const KinetoRank& b) { return a.rank < b.rank; });
  if (j.ranks.size() < 2) {
    j.not_a_job = "fewer than two of the traces have a rank number";
    return j;
  }
  j.is_job = true;
  const std::size_t by_name = j.ranks.size() - by_info;
  j.source = by_name == 0 ? KinetoRankSource::DistributedInfo : KinetoRankSource::FileName;
  if (by_info)
    j.evidence.push_back("distributedInfo names the rank in " +
                         (by_name ? std::to_string(by_info) + " of the " : std::string("each of the ")) +
                         std::to_string(j.ranks.size()) + " traces [read]");
  if (by_name)
    j.evidence.push_back("the file names carry the rank numbers of " + std::to_string(by_name) + " of " +
                         std::to_string(j.ranks.size()) +
                         " ranks, whose traces have no distributedInfo rank [read]");
  if (world_sizes.size() == 1) {
    const std::int64_t w = world_sizes.begin()->first;
    j.evidence.push_back("distributedInfo.world_size is " + std::to_string(w) + " in each trace that has it" +
                         (static_cast<std::size_t>(w) == j.ranks.size()
                              ? ": every rank of the job is here"
                              : "; " + std::to_string(j.ranks.size()) + " of its ranks are here") +
                         " [read]");
  } else if (world_sizes.size() > 1) {
    j.evidence.push_back("the traces disagree on distributedInfo.world_size: they may not be one job [read]");
  }
  decide(j);
  j.peak_allocated =
      imbalance_of("peak allocated", j.ranks, [](const KinetoRank& r) { return r.peak_allocated; });
  j.peak_reserved =
      imbalance_of("peak reserved", j.ranks, [](const KinetoRank& r) { return r.peak_reserved.value_or(0); });
  return j;
}

}  // namespace oomscope::snapshot
