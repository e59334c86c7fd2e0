// Headroom per rank (see headroom.h).

#include "core/live/headroom.h"

#include <algorithm>

namespace oomscope::live {

Headroom headroom(const RankSeries& rank) {
  Headroom h;
  const Sample* s = rank.last();
  if (!s) return h;
  h.capacity =
      rank.hello && rank.hello->total_bytes > 0 ? rank.hello->total_bytes : s->get(Field::RecommendedMax, 0);
  for (Field f : {Field::DeviceUsed, Field::Driver, Field::Reserved})
    if (s->has(f)) {
      h.used = s->get(f);
      h.known = h.capacity > 0;
      break;
    }
  return h;
}

std::vector<int> ranks_by_headroom(const Store& store) {
  const auto& ranks = store.ranks();
  std::vector<std::pair<Headroom, int>> rows;
  rows.reserve(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) rows.emplace_back(headroom(ranks[i]), static_cast<int>(i));
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.first.known != b.first.known) return a.first.known;
    return a.first.known && a.first.bytes() < b.first.bytes();
  });
  std::vector<int> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.second);
  return out;
}

}  // namespace oomscope::live
