// Shape churn analysis (see shape_churn.h).

#include "core/live/client/shape_churn.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace oomscope::live {

namespace {

double elements(const Shape& s) {
  double n = 1;
  for (auto d : s) n *= double(std::max<std::int64_t>(d, 0));
  return n;
}

std::int64_t round_up(std::int64_t v, const std::vector<std::int64_t>& bounds) {
  const auto it = std::lower_bound(bounds.begin(), bounds.end(), v);
  return it == bounds.end() ? v : *it;  // above the largest boundary: kept as is (never truncated)
}

std::vector<std::int64_t> pow2_bounds(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> b;
  std::int64_t p = 1;
  while (p < lo) p *= 2;
  for (; p < hi; p *= 2) b.push_back(p);
  b.push_back(p);
  return b;
}

std::vector<std::int64_t> multiple_bounds(std::int64_t lo, std::int64_t hi, std::int64_t m) {
  std::vector<std::int64_t> b;
  for (std::int64_t v = std::max<std::int64_t>(m, (lo + m - 1) / m * m);; v += m) {
    b.push_back(v);
    if (v >= hi || b.size() > 100000) break;
  }
  return b;
}

std::vector<std::int64_t> quantile_bounds(std::vector<std::int64_t> values, int k) {
  std::sort(values.begin(), values.end());
  std::vector<std::int64_t> b;
  for (int i = 1; i <= k; ++i) {
    const std::size_t at = std::min(
        values.size() - 1, (values.size() * std::size_t(i) + std::size_t(k) - 1) / std::size_t(k) - 1);
    if (b.empty() || values[at] > b.back()) b.push_back(values[at]);
  }
  return b;
}

}  // namespace

ShapeChurn analyse_shape_churn(std::vector<Shape> shapes, std::int64_t reported) {
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  ShapeChurn c;
  c.shapes = std::int64_t(shapes.size());
  c.reported = std::max(reported, c.shapes);
  if (shapes.empty()) return c;
  std::map<std::size_t, std::int64_t> ranks;
  for (const auto& s : shapes) ++ranks[s.size()];
  const std::size_t rank = std::max_element(ranks.begin(), ranks.end(), [](auto& a, auto& b) {
                             return a.second < b.second;
                           })->first;
  c.rank = int(rank);
  std::vector<Shape> same;
  for (auto& s : shapes)
    if (s.size() == rank) same.push_back(s);

  std::map<std::int64_t, std::int64_t> hist;
  for (const auto& s : same) {
    std::int64_t cls = 1;
    while (double(cls) < elements(s)) cls *= 2;
    ++hist[cls];
  }
  c.size_histogram.assign(hist.begin(), hist.end());

  std::vector<std::vector<std::int64_t>> values(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    std::set<std::int64_t> distinct;
    for (const auto& s : same) {
      values[d].push_back(s[d]);
      distinct.insert(s[d]);
    }
    if (distinct.size() > 1)
      c.dims.push_back(
          DimensionStats{int(d), *distinct.begin(), *distinct.rbegin(), std::int64_t(distinct.size())});
  }
  if (c.dims.empty()) return c;

  double observed = 0;
  for (const auto& s : same) observed += elements(s);
  auto evaluate = [&](std::string name, auto bounds_for) {
    BucketPlan p;
    p.name = std::move(name);
    for (const auto& dim : c.dims) p.boundaries.push_back(bounds_for(dim));
    std::set<Shape> after;
    std::vector<std::set<std::int64_t>> used(c.dims.size());
    double padded = 0;
    for (Shape s : same) {
      for (std::size_t i = 0; i < c.dims.size(); ++i) {
        auto& v = s[std::size_t(c.dims[i].index)];
        v = round_up(v, p.boundaries[i]);
        used[i].insert(v);
      }
      padded += elements(s);
      after.insert(std::move(s));
    }
    // Report the sizes shapes are padded to (the bucket set to configure), not every candidate.
    for (std::size_t i = 0; i < c.dims.size(); ++i) p.boundaries[i].assign(used[i].begin(), used[i].end());
    p.distinct_after = std::int64_t(after.size());
    p.waste = observed > 0 ? padded / observed - 1 : 0;
    c.plans.push_back(std::move(p));
  };
  evaluate("powers of two", [](const DimensionStats& d) { return pow2_bounds(d.min, d.max); });
  for (std::int64_t m : {8, 64})
    evaluate("multiples of " + std::to_string(m),
             [m](const DimensionStats& d) { return multiple_bounds(d.min, d.max, m); });
  for (int k : {4, 8, 16})
    evaluate(std::to_string(k) + " quantile buckets per dimension", [&values, k](const DimensionStats& d) {
      return quantile_bounds(values[std::size_t(d.index)], k);
    });
  std::sort(c.plans.begin(), c.plans.end(), [](const BucketPlan& a, const BucketPlan& b) {
    return a.distinct_after != b.distinct_after ? a.distinct_after < b.distinct_after : a.waste < b.waste;
  });
  return c;
}

std::string shape_churn_text(const ShapeChurn& c) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "shape churn: %lld distinct padded shapes analysed (the agent counted %lld)\n",
                static_cast<long long>(c.shapes), static_cast<long long>(c.reported));
  out += buf;
  if (c.dims.empty()) return out + "  no dimension varies: padding buckets would not help\n";
  for (const auto& d : c.dims) {
    std::snprintf(buf, sizeof buf, "  dimension %d varies: %lld sizes from %lld to %lld\n", d.index,
                  static_cast<long long>(d.distinct), static_cast<long long>(d.min),
                  static_cast<long long>(d.max));
    out += buf;
  }
  out += "  shapes by elements (up to):";
  for (const auto& [cls, n] : c.size_histogram) {
    std::snprintf(buf, sizeof buf, " %lld:%lld", static_cast<long long>(cls), static_cast<long long>(n));
    out += buf;
  }
  out += "\n  padding bucket sets (distinct shapes left, padding waste over the observed shapes):\n";
  for (const auto& p : c.plans) {
    std::string bounds;
    for (const auto& b : p.boundaries) {
      bounds += bounds.empty() ? "" : " x ";
      bounds += "{";
      for (std::size_t i = 0; i < b.size() && i < 12; ++i)
        bounds.append(i ? "," : "").append(std::to_string(b[i]));
      if (b.size() > 12) bounds.append(",... ").append(std::to_string(b.size())).append(" sizes");
      bounds += "}";
    }
    std::snprintf(buf, sizeof buf, "    %-34s %6lld shapes, waste %5.1f%%  ", p.name.c_str(),
                  static_cast<long long>(p.distinct_after), p.waste * 100);
    out += buf + bounds + "\n";
  }
  return out;
}

}  // namespace oomscope::live
