#include "core/snapshot/kineto_ranks.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

constexpr double kWallClockUs = 1e15;  // 2001-09-09 in microseconds since 1970

std::string percent(std::int64_t part, std::int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

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

const KinetoRank* closest_to_capacity(const std::vector<const KinetoRank*>& among) {
  const auto key = [](const KinetoRank* r) {
    const double share = r->capacity && *r->capacity > 0
                             ? static_cast<double>(held(*r)) / static_cast<double>(*r->capacity)
                             : -1.0;
    return std::pair(share, held(*r));
  };
  const KinetoRank* best = nullptr;
  for (const KinetoRank* r : among)
    if (!best || key(r) > key(best)) best = r;
  return best;
}

Imbalance imbalance_of(std::string name, const std::vector<KinetoRank>& ranks,
                       std::int64_t (*value)(const KinetoRank&)) {
  Imbalance im;
  im.name = std::move(name);
  std::vector<std::int64_t> v;
  for (const KinetoRank& r : ranks) {
    const std::int64_t x = value(r);
    if (v.empty() || x > im.max_bytes) im.max_bytes = x, im.max_rank = r.rank;
    v.push_back(x);
  }
  im.median = median_of(v);
  if (im.median > 0) im.ratio = static_cast<double>(im.max_bytes) / im.median;
  return im;
}

void decide(KinetoRankJob& j) {
  RankVerdict& v = j.verdict;
  std::vector<const KinetoRank*> oom;
  for (const KinetoRank& r : j.ranks)
    if (!r.ooms.empty()) oom.push_back(&r), v.oom_ranks.push_back(r.rank);
  const KinetoRank* chosen = nullptr;
  const std::string n = std::to_string(j.ranks.size());
  if (oom.size() == 1) {
    chosen = oom.front();
    v.kind = VerdictCase::Oom;
    v.sentences.push_back("rank " + std::to_string(chosen->rank) + " ran out of memory, the only one of " +
                          n + " ranks whose trace has an [OutOfMemory] event [read]");
  } else if (oom.size() > 1) {
    v.kind = VerdictCase::Oom;
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
    v.clocks_comparable = why.empty();
    v.sentences.push_back("ranks " + rank_list(v.oom_ranks) + " ran out of memory [read]");
    if (why.empty()) {
      std::vector<const KinetoRank*> by_time = oom;
      std::stable_sort(by_time.begin(), by_time.end(), [](const KinetoRank* a, const KinetoRank* b) {
        return a->ooms.front().ts_us < b->ooms.front().ts_us;
      });
      chosen = by_time[0];
      const KinetoRank& next = *by_time[1];
      const double gap_ms = (next.ooms.front().ts_us - chosen->ooms.front().ts_us) / 1000.0;
      v.sentences.push_back(first_oom_sentence(chosen->rank, next.rank, gap_ms));
    } else {
      chosen = closest_to_capacity(oom);
      v.sentences.push_back("which ran out first cannot be told: " + why + "; named: rank " +
                            std::to_string(chosen->rank) + ", which came closest to its capacity [derived]");
    }
  } else {
    std::vector<const KinetoRank*> all;
    bool capacities = true;
    for (const KinetoRank& r : j.ranks) all.push_back(&r), capacities = capacities && r.capacity.has_value();
    chosen = closest_to_capacity(all);
    const std::string what = chosen->peak_reserved ? "reserved peak " : "allocated peak (no Total Reserved) ";
    if (capacities) {
      v.kind = VerdictCase::ClosestToCapacity;
      v.sentences.push_back("no trace has an [OutOfMemory] event [read]; rank " +
                            std::to_string(chosen->rank) + " came closest to its capacity: " + what +
                            format_bytes(held(*chosen)) + " of " + format_bytes(*chosen->capacity) + " (" +
                            percent(held(*chosen), *chosen->capacity) + ") [derived]");
    } else {
      v.kind = VerdictCase::HighestReservedPeak;
      v.sentences.push_back(
          "no trace has an [OutOfMemory] event [read], and not every rank's device has a "
          "totalGlobalMem in deviceProperties: rank " +
          std::to_string(chosen->rank) + " has the highest " + what + format_bytes(held(*chosen)) +
          " [derived]; give --capacity to rank them by "
          "closeness to capacity");
    }
  }
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
  for (const auto& t : traces) {
    // distributedInfo's rank first, else a rank number in the file or folder name.
    std::int64_t rank = -1;
    std::string named_by;
    if (t->distributed && t->distributed->rank >= 0) {
      rank = t->distributed->rank;
      named_by = "distributedInfo.rank";
      ++by_info;
    } else if (const std::optional<RankInName> n = rank_in_name(t->path)) {
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
