#include "core/snapshot/pool_diff.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/snapshot/pool_summary.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::snapshot {

namespace {

std::string signed_bytes(std::int64_t v) {
  return (v > 0 ? "+" : v < 0 ? "-" : "") + format_bytes(v < 0 ? -v : v);
}

std::string where(const std::optional<std::int64_t>& oom) {
  return oom ? "at the OOM, trace entry " + std::to_string(*oom) : std::string("at the snapshot");
}

PoolFigures figures(const PoolSummary& p) { return {p.reserved, p.allocated, p.free, p.largest_free}; }

nlohmann::json figures_json(const PoolFigures& f) {
  return {{"reserved_bytes", f.reserved},
          {"allocated_bytes", f.allocated},
          {"free_bytes", f.free},
          {"largest_free_bytes", f.largest_free}};
}

}  // namespace

PoolDiff diff_pools(const DeviceAnalysis* a, const DeviceAnalysis* b) {
  PoolDiff d;
  // Keyed as pool_summaries orders them: the default pool, private pools by id, unknown last.
  std::map<std::tuple<bool, bool, PoolId>, PoolDiffRow> rows;
  for (const DeviceAnalysis* x : {a, b}) {
    if (!x) continue;
    (x == a ? d.device_a : d.device_b) = x->device;
    if (x->oom) (x == a ? d.oom_a : d.oom_b) = x->oom->index;
    for (const PoolSummary& p : x->pools) {
      const bool priv = p.id.first != 0 || p.id.second != 0;
      PoolDiffRow& r = rows[{!p.known, priv, p.id}];
      r.name = pool_name(p);
      if (p.known) r.id = p.id;
      (x == a ? r.in_a : r.in_b) = true;
      (x == a ? r.a : r.b) = figures(p);
    }
  }
  for (auto& [key, r] : rows) d.rows.push_back(std::move(r));
  return d;
}

void write_pool_diff_text(std::ostream& o, const PoolDiff& d) {
  if (d.rows.empty()) return;
  o << "\nby memory pool (allocator state of A's device " << (d.device_a ? std::to_string(*d.device_a) : "-")
    << " " << where(d.oom_a) << ", of B's device " << (d.device_b ? std::to_string(*d.device_b) : "-") << " "
    << where(d.oom_b) << "; a private pool's free blocks serve only that pool) [measured]\n";
  for (const PoolDiffRow& r : d.rows) {
    o << "  " << r.name << (!r.in_a ? " (only in B)" : !r.in_b ? " (only in A)" : "") << "\n";
    const auto row = [&](const char* name, std::int64_t va, std::int64_t vb) {
      o << "    " << pad_right(name, 24) << pad_right(r.in_a ? format_bytes(va) : "-", 12)
        << pad_right(r.in_b ? format_bytes(vb) : "-", 12) << signed_bytes(vb - va);
      if (va != 0 && r.in_a && r.in_b) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%+.1f %%)",
                      100.0 * static_cast<double>(vb - va) / static_cast<double>(va));
        o << buf;
      }
      o << "\n";
    };
    row("reserved", r.a.reserved, r.b.reserved);
    row("allocated", r.a.allocated, r.b.allocated);
    row("free", r.a.free, r.b.free);
    row("largest free block", r.a.largest_free, r.b.largest_free);
  }
}

nlohmann::json pool_diff_json(const PoolDiff& d) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PoolDiffRow& r : d.rows) {
    const PoolFigures delta{r.b.reserved - r.a.reserved, r.b.allocated - r.a.allocated, r.b.free - r.a.free,
                            r.b.largest_free - r.a.largest_free};
    rows.push_back({{"pool_id", r.id ? nlohmann::json::array({r.id->first, r.id->second}) : nlohmann::json()},
                    {"name", r.name},
                    {"private", r.id && (r.id->first != 0 || r.id->second != 0)},
                    {"in_a", r.in_a},
                    {"in_b", r.in_b},
                    {"a", r.in_a ? figures_json(r.a) : nlohmann::json()},
                    {"b", r.in_b ? figures_json(r.b) : nlohmann::json()},
                    {"delta", figures_json(delta)}});
  }
  const auto opt = [](const std::optional<std::int64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  return {{"device_a", opt(d.device_a)},
          {"device_b", opt(d.device_b)},
          {"oom_index_a", opt(d.oom_a)},
          {"oom_index_b", opt(d.oom_b)},
          {"rows", rows}};
}

}  // namespace oomscope::snapshot
