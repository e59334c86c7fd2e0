#include "core/snapshot/profile_diff.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "core/snapshot/kineto_ranks.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::snapshot {

namespace {

using Opt = std::optional<std::int64_t>;

Opt known(std::int64_t v) { return v >= 0 ? Opt(v) : std::nullopt; }

std::optional<std::int64_t> capacity_of(const KinetoTrace& t, const KinetoDevice* d) {
  if (!d || d->device_type == 0) return std::nullopt;
  for (const KinetoGpu& g : t.gpu_props)
    if (g.id == d->device_id && g.total_global_mem > 0) return g.total_global_mem;
  return std::nullopt;
}

std::string signed_bytes(std::int64_t v) {
  return (v > 0 ? "+" : v < 0 ? "-" : "") + format_bytes(v < 0 ? -v : v);
}

// Live bytes by category (the user's rules), with what decided each.
void write_categories_text(std::ostream& o, const ProfileCategories& c) {
  o << "\nlive bytes by category (rules of " << c.rules_path << " on the Python frames; no built-in rules) "
    << "[derived]\n";
  o << "  " << pad_right("B - A", 12) << pad_right("A", 12) << pad_right("B", 12) << "category\n";
  for (const ProfileCategoryRow& r : c.rows) {
    o << "  " << pad_right(signed_bytes(r.delta()), 12) << pad_right(format_bytes(r.a), 12)
      << pad_right(format_bytes(r.b), 12) << r.name << "\n";
    for (const ProfileCategoryReason& why : r.reasons)
      o << "      " << why.why << ": " << why.a_samples << " samples in A, " << why.b_samples << " in B\n";
  }
  for (const std::string& n : c.notes) o << "  " << n << "\n";
}

nlohmann::json categories_json(const ProfileCategories& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ProfileCategoryRow& r : c.rows) {
    nlohmann::json why = nlohmann::json::array();
    for (const ProfileCategoryReason& x : r.reasons)
      why.push_back({{"why", x.why}, {"a_samples", x.a_samples}, {"b_samples", x.b_samples}});
    rows.push_back({{"category", r.name},
                    {"a", r.a},
                    {"b", r.b},
                    {"delta", r.delta()},
                    {"a_samples", r.a_samples},
                    {"b_samples", r.b_samples},
                    {"reasons", why}});
  }
  return {{"rows", rows}, {"notes", c.notes}};
}

}  // namespace

ProfileDiff diff_kineto(const KinetoTrace& a, const KinetoTrace& b, const CategoryRules* rules) {
  ProfileDiff d;
  d.format = "kineto";
  d.path_a = a.path;
  d.path_b = b.path;
  const KinetoDevice* da = rank_device(a);
  const KinetoDevice* db = rank_device(b);
  d.device_a = da ? da->label : "-";
  d.device_b = db ? db->label : "-";
  const auto row = [&](std::string name, bool bytes, auto get) {
    d.totals.push_back({std::move(name), bytes, da ? get(*da) : Opt(), db ? get(*db) : Opt()});
  };
  row("peak allocated [read]", true, [](const KinetoDevice& x) { return known(x.max_total_allocated); });
  row("peak live (running sum)", true, [](const KinetoDevice& x) { return Opt(x.peak_live); });
  row("peak reserved [read]", true, [](const KinetoDevice& x) { return known(x.max_total_reserved); });
  row("largest allocation", true, [](const KinetoDevice& x) { return Opt(x.largest_alloc); });
  row("[memory] events", false,
      [](const KinetoDevice& x) { return Opt(static_cast<std::int64_t>(x.allocs + x.frees)); });
  row("[OutOfMemory] events", false,
      [](const KinetoDevice& x) { return Opt(static_cast<std::int64_t>(x.ooms.size())); });
  d.totals.push_back({"capacity (totalGlobalMem)", true, capacity_of(a, da), capacity_of(b, db)});
  d.totals.push_back({"ProfilerStep markers", false, Opt(static_cast<std::int64_t>(a.steps.size())),
                      Opt(static_cast<std::int64_t>(b.steps.size()))});
  d.cannot_tell.push_back(
      "a Kineto [memory] event records no stack and no category, so the difference cannot be told by "
      "allocation site or category; record snapshots (torch.cuda.memory._record_memory_history) for that");
  if (a.old_schema || b.old_schema)
    d.cannot_tell.push_back(
        "a trace in the old event schema has no Total Allocated or Total Reserved: its "
        "peak is the running sum of Bytes since profiling began");
  if (rules) {
    d.rules_path = rules->path();
    d.categories_note = "--categories " + rules->path() +
                        ": not applied, a Kineto [memory] event carries no stack frames, annotations or "
                        "metadata for its rules to read";
  }
  return d;
}

ProfileDiff diff_pprof(const PprofProfile& a, const PprofProfile& b, std::size_t top,
                       const CategoryRules* rules) {
  ProfileDiff d;
  d.format = "pprof";
  d.path_a = a.path;
  d.path_b = b.path;
  const auto kind_total = [](const PprofProfile& p, const std::string& kind) {
    std::int64_t bytes = 0;
    for (const PprofGroup& g : p.by_kind())
      if (g.kind == kind) bytes += g.bytes;
    return bytes;
  };
  d.totals.push_back({"live bytes [read]", true, a.total_bytes(), b.total_bytes()});
  d.totals.push_back({"buffers [read]", true, kind_total(a, "buffer"), kind_total(b, "buffer")});
  d.totals.push_back({"executables [read]", true, kind_total(a, "executable"), kind_total(b, "executable")});
  d.totals.push_back({"samples", false, static_cast<std::int64_t>(a.samples.size()),
                      static_cast<std::int64_t>(b.samples.size())});
  std::map<std::pair<std::string, std::string>, ProfileSiteRow> rows;
  for (const PprofGroup& g : a.by_line()) {
    ProfileSiteRow& r = rows[{g.where, g.kind}];
    r.site = g.where, r.kind = g.kind, r.a = g.bytes, r.a_count = g.samples;
  }
  for (const PprofGroup& g : b.by_line()) {
    ProfileSiteRow& r = rows[{g.where, g.kind}];
    r.site = g.where, r.kind = g.kind, r.b = g.bytes, r.b_count = g.samples;
  }
  for (auto& [key, r] : rows)
    if (r.delta() != 0) d.sites.push_back(std::move(r));
  std::stable_sort(d.sites.begin(), d.sites.end(), [](const ProfileSiteRow& x, const ProfileSiteRow& y) {
    return std::llabs(x.delta()) > std::llabs(y.delta());
  });
  d.sites_total = d.sites.size();
  if (d.sites.size() > top) d.sites.resize(top);
  d.cannot_tell.push_back(
      "a JAX device memory profile is one heap snapshot, taken when it was saved: there is no time axis, so "
      "no peak; the bytes are what was live at that moment in each run");
  d.cannot_tell.push_back(
      "it names no category (parameter, activation, ...): sites are Python lines, by kind");
  if (rules) {
    d.rules_path = rules->path();
    d.categories = pprof_categories(a, b, *rules);
  }
  return d;
}

void write_profile_diff_text(std::ostream& o, const ProfileDiff& d) {
  o << "A: " << d.path_a << "\nB: " << d.path_b << "\n";
  if (d.format == "kineto")
    o << "Kineto traces; figures of each trace's main device: A " << d.device_a << ", B " << d.device_b
      << "\n";
  else
    o << "JAX device memory profiles (pprof)\n";
  o << "\n" << pad_right("", 28) << pad_right("A", 12) << pad_right("B", 12) << "B - A\n";
  for (const ProfileRow& r : d.totals) {
    const auto f = [&](const Opt& v) {
      return !v ? std::string("-") : r.bytes ? format_bytes(*v) : format_bytes_exact(*v);
    };
    std::string delta = "-";
    if (r.a && r.b) {
      const std::int64_t x = *r.b - *r.a;
      delta = r.bytes ? signed_bytes(x) : (x >= 0 ? "+" : "") + format_bytes_exact(x);
      if (*r.a != 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%+.1f %%)",
                      100.0 * static_cast<double>(x) / static_cast<double>(*r.a));
        delta += buf;
      }
    }
    o << pad_right(r.name, 28) << pad_right(f(r.a), 12) << pad_right(f(r.b), 12) << delta << "\n";
  }
  if (d.format == "pprof") {
    o << "\nlive bytes by Python line and kind, largest change first (" << d.sites_total
      << " changed) [read]\n";
    o << "  " << pad_right("B - A", 12) << pad_right("A", 12) << pad_right("B", 12) << pad_right("kind", 12)
      << "site\n";
    for (const ProfileSiteRow& r : d.sites)
      o << "  " << pad_right(signed_bytes(r.delta()), 12) << pad_right(format_bytes(r.a), 12)
        << pad_right(format_bytes(r.b), 12) << pad_right(r.kind.empty() ? "-" : r.kind, 12) << r.site << "\n";
    if (d.sites_total > d.sites.size()) o << "  ... " << d.sites_total - d.sites.size() << " more\n";
  }
  if (d.categories) write_categories_text(o, *d.categories);
  if (!d.categories_note.empty()) o << "\n" << d.categories_note << "\n";
  o << "\nwhat the format cannot tell:\n";
  for (const std::string& s : d.cannot_tell) o << "  " << s << "\n";
}

nlohmann::json profile_diff_json(const ProfileDiff& d) {
  const auto opt = [](const Opt& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json totals = nlohmann::json::array();
  for (const ProfileRow& r : d.totals)
    totals.push_back({{"name", r.name},
                      {"unit", r.bytes ? "bytes" : "count"},
                      {"a", opt(r.a)},
                      {"b", opt(r.b)},
                      {"delta", r.a && r.b ? nlohmann::json(*r.b - *r.a) : nlohmann::json(nullptr)}});
  nlohmann::json j = {{"format", d.format}, {"a", d.path_a}, {"b", d.path_b}, {"totals", totals}};
  if (d.format == "kineto") {
    j["device_a"] = d.device_a;
    j["device_b"] = d.device_b;
    j["sites"] = nullptr;  // the format carries no sites
  } else {
    j["sites"] = nlohmann::json::array();
    for (const ProfileSiteRow& r : d.sites)
      j["sites"].push_back({{"site", r.site},
                            {"kind", r.kind},
                            {"a", r.a},
                            {"b", r.b},
                            {"delta", r.delta()},
                            {"a_count", r.a_count},
                            {"b_count", r.b_count}});
    j["sites_changed"] = d.sites_total;
  }
  if (!d.rules_path.empty()) {  // only with --categories: the JSON without it is unchanged
    j["category_rules"] = d.rules_path;
    j["categories"] = d.categories ? categories_json(*d.categories) : nlohmann::json(nullptr);
    if (!d.categories_note.empty()) j["categories_note"] = d.categories_note;
  }
  j["cannot_tell"] = d.cannot_tell;
  return j;
}

}  // namespace oomscope::snapshot
