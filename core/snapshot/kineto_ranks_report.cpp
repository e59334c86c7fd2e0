// The text and JSON of a job's per-rank Kineto traces (kineto_ranks.h; docs/report-json.md).

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/snapshot/kineto_ranks.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::snapshot {

namespace {

std::string b(std::int64_t v) { return format_bytes(v); }

std::string seconds(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", us / 1e6);
  return buf;
}

// A trace's times are microseconds, whole in most traces: written as integers then, else as they are.
nlohmann::json time_json(double us) {
  if (us == std::floor(us) && std::abs(us) < 9e15) return static_cast<std::int64_t>(us);
  return us;
}

nlohmann::json rank_json(const KinetoRank& r) {
  nlohmann::json j = {
      {"rank", r.rank},
      {"file", r.path},
      {"rank_from", r.named_by},
      {"world_size", r.world_size >= 0 ? nlohmann::json(r.world_size) : nlohmann::json(nullptr)},
      {"device", r.device},
      {"device_id", r.device_id},
      {"memory_events", r.memory_events},
      {"peak_allocated_bytes", r.peak_allocated},
      {"peak_allocated_from", r.peak_allocated_read ? "Total Allocated" : "running sum of Bytes"},
      {"peak_time_us", time_json(r.peak_ts_us)},
      {"peak_reserved_bytes", r.peak_reserved ? nlohmann::json(*r.peak_reserved) : nlohmann::json(nullptr)},
      {"capacity_bytes", r.capacity ? nlohmann::json(*r.capacity) : nlohmann::json(nullptr)},
      {"capacity_source", enum_name(kKinetoCapacitySourceNames, r.capacity_source, "")},
      {"first_time_us", time_json(r.first_ts_us)},
      {"last_time_us", time_json(r.last_ts_us)},
      {"steps", r.steps}};
  j["ooms"] = nlohmann::json::array();
  for (const KinetoOom& o : r.ooms)
    j["ooms"].push_back({{"time_us", time_json(o.ts_us)},
                         {"requested_bytes", o.requested},
                         {"reserved_bytes",
                          o.total_reserved >= 0 ? nlohmann::json(o.total_reserved) : nlohmann::json(nullptr)},
                         {"allocated_bytes", o.total_allocated >= 0 ? nlohmann::json(o.total_allocated)
                                                                    : nlohmann::json(nullptr)}});
  return j;
}

}  // namespace

void write_kineto_ranks_text(std::ostream& o, const KinetoRankJob& j) {
  o << "== job of " << j.ranks.size()
    << " ranks: Kineto traces (torch.profiler, profile_memory) read as one job\n";
  o << "evidence:\n";
  for (const std::string& e : j.evidence) o << "  " << e << "\n";
  if (!j.excluded.empty()) {
    o << "not of this job (left out):\n";
    for (const ExcludedFile& x : j.excluded) o << "  " << x.path << ": " << x.reason << "\n";
  }
  double t0 = 0;
  bool any = false;
  for (const KinetoRank& r : j.ranks)
    if (r.memory_events && (!any || r.first_ts_us < t0)) t0 = r.first_ts_us, any = true;
  o << "\nRANKS (peaks and OOM [read] from the [memory] and [OutOfMemory] events; OOM time since the "
       "earliest "
       "[memory] event of any rank)\n";
  o << "  " << pad_right("rank", 6) << pad_right("device", 9) << pad_right("peak allocated", 16)
    << pad_right("peak reserved", 15) << pad_right("capacity", 22) << pad_right("OOM", 40) << "file\n";
  for (const KinetoRank& r : j.ranks) {
    std::string cap = "-";
    if (r.capacity)
      cap = b(*r.capacity) + (r.capacity_source == KinetoCapacitySource::Given ? " (given)" : " (device)");
    std::string oom = "none";
    if (!r.ooms.empty()) {
      oom = b(r.ooms.front().requested) + " request";
      if (any) oom += ", at " + seconds(r.ooms.front().ts_us - t0);
      if (r.ooms.size() > 1) oom += ", " + std::to_string(r.ooms.size()) + " events";
    }
    const std::string alloc = b(r.peak_allocated) + (r.peak_allocated_read ? "" : "*");
    o << "  " << pad_right(std::to_string(r.rank), 6) << pad_right(r.device.empty() ? "-" : r.device, 9)
      << pad_right(alloc, 16) << pad_right(r.peak_reserved ? b(*r.peak_reserved) : "-", 15)
      << pad_right(cap, 22) << pad_right(oom, 40) << r.path << "\n";
  }
  for (const KinetoRank& r : j.ranks)
    if (!r.peak_allocated_read) {
      o << "  * no Total Allocated in the trace (the old event schema): the peak of the running sum of Bytes "
           "since profiling began [derived]\n";
      break;
    }
  for (const KinetoRank& r : j.ranks)
    if (r.capacity_source == KinetoCapacitySource::DeviceProperties) {
      o << "  capacity (device) = deviceProperties' totalGlobalMem of the rank's device [read]: the whole "
           "device, the CUDA context and other processes included\n";
      break;
    }
  const RankVerdict& v = j.verdict;
  o << "\nVERDICT (" << to_string(v.kind) << "): rank " << v.rank << "\n";
  for (const std::string& s : v.sentences) o << "  " << s << "\n";
  o << "\nIMBALANCE (max / median over the ranks, at each rank's peak) [derived]\n";
  ranks::write_imbalance_line(o, j.peak_allocated);
  ranks::write_imbalance_line(o, j.peak_reserved);
  o << "  (no categories: a Kineto trace does not say what its allocations are)\n";
}

nlohmann::json kineto_ranks_json(const KinetoRankJob& j) {
  nlohmann::json out;
  out["kind"] = "kineto-trace-ranks";
  out["job"] = {{"rank_source", enum_name(kKinetoRankSourceNames, j.source, "")}, {"evidence", j.evidence}};
  out["excluded"] = nlohmann::json::array();
  for (const ExcludedFile& x : j.excluded)
    out["excluded"].push_back({{"file", x.path}, {"reason", x.reason}});
  out["ranks"] = nlohmann::json::array();
  for (const KinetoRank& r : j.ranks) out["ranks"].push_back(rank_json(r));
  const RankVerdict& v = j.verdict;
  nlohmann::json verdict = {
      {"rank", v.rank}, {"case", to_string(v.kind)}, {"sentences", v.sentences}, {"oom_ranks", v.oom_ranks}};
  verdict["clocks_comparable"] =
      v.clocks_comparable ? nlohmann::json(*v.clocks_comparable) : nlohmann::json(nullptr);
  verdict["categories"] = nlohmann::json::array();  // the format carries none (kineto_ranks.h)
  verdict["sites"] = nlohmann::json::array();
  verdict["sites_total"] = 0;
  out["verdict"] = std::move(verdict);
  out["imbalance"] = {{"peak_allocated", ranks::imbalance_json(j.peak_allocated)},
                      {"peak_reserved", ranks::imbalance_json(j.peak_reserved)},
                      {"categories", nlohmann::json::array()}};
  return out;
}

}  // namespace oomscope::snapshot
