// The JSON of a job's ranks (rank_comparison.h; docs/report-json.md, "Ranks of one job").

#include <nlohmann/json.hpp>

#include "core/snapshot/rank_comparison.h"

namespace oomscope::snapshot {

namespace {

using ranks::imbalance_json;
using ranks::median_json;

nlohmann::json difference_json(const RankDifference& d, const char* key) {
  return {{key, d.name},
          {"bytes", d.bytes},
          {"median_bytes", median_json(d.median)},
          {"difference_bytes", median_json(d.difference())}};
}

nlohmann::json rank_json(const RankFigures& f) {
  nlohmann::json j = {{"rank", f.rank},
                      {"file", f.path},
                      {"rank_from", f.named_by},
                      {"device", f.device},
                      {"peak_allocated_bytes", f.peak_allocated},
                      {"peak_trace_index", f.peak_index},
                      {"peak_reserved_bytes", f.peak_reserved},
                      {"capacity_bytes", f.capacity ? nlohmann::json(*f.capacity) : nlohmann::json(nullptr)},
                      {"capacity_source", enum_name(kRankCapacitySourceNames, f.capacity_source, "")},
                      {"first_time_us", f.first_time_us},
                      {"last_time_us", f.last_time_us}};
  if (f.oom)
    j["oom"] = {{"trace_index", f.oom->trace_index},
                {"requested_bytes", f.oom->requested},
                {"device_free_bytes", f.oom->device_free},
                {"reserved_bytes", f.oom->reserved},
                {"time_us", f.oom->time_us}};
  else
    j["oom"] = nullptr;
  j["categories_at_peak"] = nlohmann::json::array();
  for (const CategoryTotal& t : f.categories)
    j["categories_at_peak"].push_back(
        {{"category", t.label()}, {"bytes", t.bytes}, {"count", t.count}, {"rule", t.rule}});
  j["sites_at_peak"] = nlohmann::json::array();
  for (const auto& [site, bytes] : f.top_sites)
    j["sites_at_peak"].push_back({{"site", site}, {"bytes", bytes}});
  j["sites_at_peak_total"] = f.sites.size();
  j["largest_at_peak"] = nlohmann::json::array();
  for (const PeakAllocation& p : f.largest)
    j["largest_at_peak"].push_back({{"bytes", p.bytes},
                                    {"trace_index", p.alloc_index},
                                    {"category", p.category.label()},
                                    {"where", p.where}});
  return j;
}

}  // namespace

nlohmann::json rank_comparison_json(const RankComparison& c) {
  const RankGrouping& g = c.grouping;
  nlohmann::json j;
  j["kind"] = "torch-snapshot-ranks";
  j["job"] = {{"rank_source", to_string(g.source)}, {"evidence", g.evidence}};
  j["category_rules"] = c.rules_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.rules_path);
  j["excluded"] = nlohmann::json::array();
  for (const ExcludedFile& x : g.excluded) j["excluded"].push_back({{"file", x.path}, {"reason", x.reason}});
  j["ranks"] = nlohmann::json::array();
  for (const RankFigures& f : c.ranks) j["ranks"].push_back(rank_json(f));
  const RankVerdict& v = c.verdict;
  nlohmann::json verdict = {
      {"rank", v.rank}, {"case", to_string(v.kind)}, {"sentences", v.sentences}, {"oom_ranks", v.oom_ranks}};
  verdict["clocks_comparable"] =
      v.clocks_comparable ? nlohmann::json(*v.clocks_comparable) : nlohmann::json(nullptr);
  verdict["categories"] = nlohmann::json::array();
  for (const RankDifference& d : v.categories)
    verdict["categories"].push_back(difference_json(d, "category"));
  verdict["sites"] = nlohmann::json::array();
  for (const RankDifference& d : v.sites) verdict["sites"].push_back(difference_json(d, "site"));
  verdict["sites_total"] = v.sites_total;
  j["verdict"] = std::move(verdict);
  nlohmann::json im = {{"peak_allocated", imbalance_json(c.peak_allocated)},
                       {"peak_reserved", imbalance_json(c.peak_reserved)}};
  im["categories"] = nlohmann::json::array();
  for (const Imbalance& x : c.categories) im["categories"].push_back(imbalance_json(x));
  j["imbalance"] = std::move(im);
  return j;
}

}  // namespace oomscope::snapshot
