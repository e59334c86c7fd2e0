#include "core/snapshot/snapshot_diff.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/snapshot/peak_sites.h"
#include "core/snapshot/snapshot_json.h"
#include "core/snapshot/snapshot_text.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::snapshot {

namespace {

std::string signed_bytes(std::int64_t v) {
  return (v > 0 ? "+" : v < 0 ? "-" : "") + format_bytes(v < 0 ? -v : v);
}

std::string pct_change(std::int64_t a, std::int64_t b) {
  if (a == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%+.1f %%)", 100.0 * static_cast<double>(b - a) / static_cast<double>(a));
  return buf;
}

DiffPeak peak_of(const Snapshot& s, const std::string& path, const DeviceAnalysis* d) {
  DiffPeak p;
  p.path = path;
  if (!d) return p;
  p.device = d->device;
  p.bytes = d->timeline.peak_bytes;
  p.trace_entry = d->timeline.peak_index;
  const auto dev = static_cast<std::size_t>(d->device);
  p.traced = dev < s.device_traces.size() && !s.device_traces[dev].empty();
  if (p.trace_entry >= 0 && d->first_time_us >= 0 && dev < s.device_traces.size()) {
    const TraceEntry& e = s.device_traces[dev].at(static_cast<std::size_t>(p.trace_entry));
    if (e.time_us >= 0) p.time_s = static_cast<double>(e.time_us - d->first_time_us) / 1e6;
  }
  if (p.trace_entry >= 0)
    if (const AnnotationWindow* w = window_at(d->windows, p.trace_entry)) p.window = w->name;
  return p;
}

void write_peak_line(std::ostream& o, const char* run, const DiffPeak& p) {
  o << "peak of " << run << ": " << format_bytes(p.bytes) << " (" << p.bytes << " B) allocated on device "
    << p.device;
  if (!p.traced) {
    o << ", the blocks live in the snapshot (no trace recorded)";
  } else if (p.trace_entry < 0) {
    o << ", before the first trace entry";
  } else {
    o << " at trace entry " << p.trace_entry;
    if (p.time_s) {
      char buf[48];
      std::snprintf(buf, sizeof buf, ", %.6f s after the first trace entry", *p.time_s);
      o << buf;
    } else {
      o << " (no times recorded)";
    }
    if (!p.window.empty()) o << ", inside " << p.window << " (external_annotations)";
  }
  o << " [derived]\n";
}

// Where the peak moved, when both runs' annotations place it and the places differ.
void write_peak_move(std::ostream& o, const DiffPeak& a, const DiffPeak& b) {
  if (!peak_moved(a, b)) return;
  o << "the peak moved: A's falls inside " << a.window << ", B's inside " << b.window << " [derived]\n";
}

nlohmann::json peak_json(const DiffPeak& p) {
  return {{"path", p.path},
          {"device", p.device},
          {"peak_allocated_bytes", p.bytes},
          {"trace_entry", p.trace_entry},
          {"time_s", p.time_s ? nlohmann::json(*p.time_s) : nlohmann::json(nullptr)},
          {"window", p.window.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.window)}};
}

}  // namespace

bool peak_moved(const DiffPeak& a, const DiffPeak& b) {
  return !a.window.empty() && !b.window.empty() && a.window != b.window;
}

SnapshotDiff diff_snapshots(const Snapshot& a, const SnapshotReport& ra, const Snapshot& b,
                            const SnapshotReport& rb, std::size_t top, const CategoryRules* rules) {
  SnapshotDiff d;
  d.path_a = ra.path;
  d.path_b = rb.path;
  const DeviceAnalysis* da = main_device(a, ra);
  const DeviceAnalysis* db = main_device(b, rb);
  d.peak_a = peak_of(a, ra.path, da);
  d.peak_b = peak_of(b, rb.path, db);
  auto peak = [](const DeviceAnalysis* x) { return x ? x->timeline.peak_bytes : 0; };
  auto ghosts = [](const DeviceAnalysis* x) { return x ? x->timeline.ghost_bytes : 0; };
  auto largest_free = [](const DeviceAnalysis* x) { return x ? x->state.largest_free : 0; };
  d.totals = {
      {"active-memory peak", peak(da), peak(db)},
      {"reserved", ra.reserved, rb.reserved},
      {"allocated", ra.allocated, rb.allocated},
      {"requested by live blocks", ra.requested_active, rb.requested_active},
      {"cached free (inactive)", ra.inactive_bytes, rb.inactive_bytes},
      {"largest free block", largest_free(da), largest_free(db)},
      {"allocated before the trace", ghosts(da), ghosts(db)},
      {"segments", static_cast<std::int64_t>(ra.segments), static_cast<std::int64_t>(rb.segments)},
      {"blocks", static_cast<std::int64_t>(ra.blocks), static_cast<std::int64_t>(rb.blocks)},
      {"trace entries", static_cast<std::int64_t>(ra.trace_entries),
       static_cast<std::int64_t>(rb.trace_entries)},
  };
  d.pools = diff_pools(da, db);
  // Built-in categories in their order, then the user's own names as met (A's, then B's).
  std::vector<std::pair<Category, std::string>> keys;
  for (int c = 0; c < kCategoryCount; ++c)
    if (static_cast<Category>(c) != Category::Custom) keys.emplace_back(static_cast<Category>(c), "");
  for (const DeviceAnalysis* x : {da, db})
    if (x)
      for (const CategoryTotal& t : x->categories_at_peak)
        if (t.category == Category::Custom &&
            std::find(keys.begin(), keys.end(), std::pair(t.category, t.name)) == keys.end())
          keys.emplace_back(t.category, t.name);
  for (const auto& [cat, name] : keys) {
    DiffRow row{cat == Category::Custom ? name : std::string(to_string(cat)), 0, 0};
    for (const DeviceAnalysis* x : {da, db})
      if (x)
        for (const CategoryTotal& t : x->categories_at_peak)
          if (t.category == cat && t.name == name) (x == da ? row.a : row.b) = t.bytes;
    if (row.a || row.b) d.categories.push_back(row);
  }
  auto sa = sites_at_peak(a, da), sb = sites_at_peak(b, db);
  std::map<std::string, DiffRow> rows;
  for (auto& [k, v] : sa) rows[k] = DiffRow{k, v, 0};
  for (auto& [k, v] : sb) {
    auto [it, added] = rows.try_emplace(k, DiffRow{k, 0, 0});
    it->second.b = v;
  }
  for (auto& [k, r] : rows)
    if (r.delta() != 0) d.sites.push_back(r);
  d.sites_total = d.sites.size();
  std::stable_sort(d.sites.begin(), d.sites.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::llabs(x.delta()) > std::llabs(y.delta());
  });
  if (d.sites.size() > top) d.sites.resize(top);

  d.rules_path = rules ? rules->path() : "";
  std::map<std::pair<std::string, std::string>, DiffSiteRow> by_cat;
  for (const PeakSite& p : categorised_sites_at_peak(a, da, rules)) {
    DiffSiteRow& r = by_cat[{p.site, p.category}];
    r.site = p.site, r.category = p.category, r.rule = p.rule, r.a = p.bytes, r.a_count = p.count;
  }
  for (const PeakSite& p : categorised_sites_at_peak(b, db, rules)) {
    DiffSiteRow& r = by_cat[{p.site, p.category}];
    r.site = p.site, r.category = p.category, r.rule = p.rule, r.b = p.bytes, r.b_count = p.count;
  }
  for (auto& [k, r] : by_cat)
    if (r.delta() != 0) d.site_rows.push_back(std::move(r));
  d.site_rows_total = d.site_rows.size();
  std::stable_sort(d.site_rows.begin(), d.site_rows.end(), [](const DiffSiteRow& x, const DiffSiteRow& y) {
    return std::llabs(x.delta()) > std::llabs(y.delta());
  });
  if (d.site_rows.size() > top) d.site_rows.resize(top);

  analysis::DiagnosisLine l;
  l.rule = "peak-change";
  l.provenance = analysis::Provenance::Derived;
  l.finding = "the active-memory peak goes from " + format_bytes(peak(da)) + " to " + format_bytes(peak(db)) +
              ": " + signed_bytes(peak(db) - peak(da)) + pct_change(peak(da), peak(db));
  // What changed most at the peaks, by category and by site, and where each peak fell when both files'
  // annotations place it.
  std::vector<std::string> causes;
  const DiffRow* top_category = nullptr;
  for (const DiffRow& c : d.categories)
    if (c.delta() != 0 && (!top_category || std::llabs(c.delta()) > std::llabs(top_category->delta())))
      top_category = &c;
  if (top_category)
    causes.push_back("by category the largest change at the peak is " + top_category->name + " " +
                     signed_bytes(top_category->delta()));
  if (!d.sites.empty())
    causes.push_back((top_category ? "by site, " : "the largest change at the peak is ") +
                     signed_bytes(d.sites.front().delta()) + " at " + d.sites.front().name);
  if (peak_moved(d.peak_a, d.peak_b))
    causes.push_back("the peak moved from inside " + d.peak_a.window + " to inside " + d.peak_b.window);
  for (std::size_t i = 0; i < causes.size(); ++i) l.cause += (i ? "; " : "") + causes[i];
  d.findings.push_back(std::move(l));
  if (rb.reserved != ra.reserved) {
    analysis::DiagnosisLine r;
    r.rule = "reserved-change";
    r.provenance = analysis::Provenance::Read;
    r.finding = "reserved memory goes from " + format_bytes(ra.reserved) + " to " +
                format_bytes(rb.reserved) + ": " + signed_bytes(rb.reserved - ra.reserved) +
                pct_change(ra.reserved, rb.reserved);
    d.findings.push_back(std::move(r));
  }
  return d;
}

void write_diff_text(std::ostream& o, const SnapshotDiff& d) {
  o << "A: " << d.path_a << "\nB: " << d.path_b << "\n";
  write_peak_line(o, "A", d.peak_a);
  write_peak_line(o, "B", d.peak_b);
  write_peak_move(o, d.peak_a, d.peak_b);
  o << "\n";
  o << pad_right("", 28) << pad_right("A", 12) << pad_right("B", 12) << "B - A\n";
  for (const DiffRow& r : d.totals) {
    const bool count = r.name == "segments" || r.name == "blocks" || r.name == "trace entries";
    auto f = [&](std::int64_t v) { return count ? format_bytes_exact(v) : format_bytes(v); };
    o << pad_right(r.name, 28) << pad_right(f(r.a), 12) << pad_right(f(r.b), 12)
      << (count ? (r.delta() >= 0 ? "+" : "") + format_bytes_exact(r.delta()) : signed_bytes(r.delta()))
      << pct_change(r.a, r.b) << "\n";
  }
  write_pool_diff_text(o, d.pools);
  if (!d.categories.empty()) {
    o << "\nat each peak by category ("
      << (d.rules_path.empty() ? "" : "rules of " + d.rules_path + ", then ")
      << "guessed from stacks) [derived]\n";
    for (const DiffRow& r : d.categories)
      o << "  " << pad_right(r.name, 26) << pad_right(format_bytes(r.a), 12)
        << pad_right(format_bytes(r.b), 12) << signed_bytes(r.delta()) << "\n";
  }
  o << "\nat each peak by allocation site and category, largest change first (" << d.site_rows_total
    << " changed at " << d.sites_total << " sites) [derived]\n";
  o << "  " << pad_right("B - A", 12) << pad_right("A", 12) << pad_right("B", 12) << pad_right("category", 17)
    << "site\n";
  for (const DiffSiteRow& r : d.site_rows)
    o << "  " << pad_right(signed_bytes(r.delta()), 12) << pad_right(format_bytes(r.a), 12)
      << pad_right(format_bytes(r.b), 12) << pad_right(r.category, 17) << r.site << "\n";
  write_diagnosis_text(o, d.findings);
}

nlohmann::json diff_json(const SnapshotDiff& d) {
  auto rows = [](const std::vector<DiffRow>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const DiffRow& r : v)
      out.push_back({{"name", r.name}, {"a", r.a}, {"b", r.b}, {"delta", r.delta()}});
    return out;
  };
  auto site_rows = [](const std::vector<DiffSiteRow>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const DiffSiteRow& r : v)
      out.push_back({{"site", r.site},
                     {"category", r.category},
                     {"a", r.a},
                     {"b", r.b},
                     {"delta", r.delta()},
                     {"a_count", r.a_count},
                     {"b_count", r.b_count},
                     {"rule", r.rule}});
    return out;
  };
  return {{"a", d.path_a},
          {"b", d.path_b},
          {"peaks", nlohmann::json::array({peak_json(d.peak_a), peak_json(d.peak_b)})},
          {"totals", rows(d.totals)},
          {"pools", pool_diff_json(d.pools)},
          {"categories_at_peak", rows(d.categories)},
          {"sites_at_peak", rows(d.sites)},
          {"sites_changed", d.sites_total},
          {"sites", site_rows(d.site_rows)},
          {"site_rows_changed", d.site_rows_total},
          {"category_rules", d.rules_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.rules_path)},
          {"diagnosis", diagnosis_lines_json(d.findings)}};
}

}  // namespace oomscope::snapshot
