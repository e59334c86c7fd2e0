#include "core/ranks/rank_imbalance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/util/bytes.h"
#include "core/util/columns.h"

namespace oomscope::ranks {

double median_of(std::vector<std::int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n % 2) return static_cast<double>(v[n / 2]);
  return (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

Imbalance imbalance_of(std::string name, const std::vector<RankValue>& values) {
  Imbalance im;
  im.name = std::move(name);
  std::vector<std::int64_t> v;
  v.reserve(values.size());
  for (const RankValue& x : values) {
    if (v.empty() || x.bytes > im.max_bytes) im.max_bytes = x.bytes, im.max_rank = x.rank;
    v.push_back(x.bytes);
  }
  im.median = median_of(std::move(v));
  if (im.median > 0) im.ratio = static_cast<double>(im.max_bytes) / im.median;
  return im;
}

std::string ratio_text(const Imbalance& im) {
  if (!im.ratio) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", *im.ratio);
  return buf;
}

void write_imbalance_line(std::ostream& o, const Imbalance& im, std::size_t name_width) {
  o << "  " << pad_right(im.name, name_width) << pad_right(ratio_text(im), 8) << "max "
    << format_bytes(im.max_bytes) << " (rank " << im.max_rank << "), median "
    << format_bytes(static_cast<std::int64_t>(std::llround(im.median)))
    << (im.ratio ? "" : ": no ratio, the median rank holds none") << "\n";
}

nlohmann::json median_json(double m) {
  if (m == static_cast<double>(static_cast<std::int64_t>(m))) return static_cast<std::int64_t>(m);
  return m;
}

nlohmann::json imbalance_json(const Imbalance& im) {
  return {{"name", im.name},
          {"max_bytes", im.max_bytes},
          {"max_rank", im.max_rank},
          {"median_bytes", median_json(im.median)},
          {"ratio", im.ratio ? nlohmann::json(*im.ratio) : nlohmann::json(nullptr)}};
}

}  // namespace oomscope::ranks
