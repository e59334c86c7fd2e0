#include "ui/sim/tree_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/util/error.h"

namespace oomscope::ui {

std::pair<std::size_t, std::size_t> TreeLayout::rangeX(float x0, float x1) const {
  const auto lo = std::lower_bound(sortedX.begin(), sortedX.end(), x0);
  const auto hi = std::upper_bound(lo, sortedX.end(), x1);
  return {std::size_t(lo - sortedX.begin()), std::size_t(hi - sortedX.begin())};
}

namespace {

void checkStop(const std::stop_token& stop, std::size_t i) {
  if ((i & 4095) == 0 && stop.stop_requested()) throw Cancelled();
}

}  // namespace

TreeLayout layoutTree(const sim::EventLog& log, const std::stop_token& stop) {
  const auto& events = log.events;
  const std::size_t n = events.size();
  TreeLayout t;
  t.x.assign(n, 0.f);
  t.depth.assign(n, 0);
  t.size.assign(n, 0.f);
  t.parents.assign(n, -1);
  t.childBegin.assign(n + 1, 0);

  // Children in CSR form. A parent that is not an earlier event (a damaged trace) makes the node a root.
  std::int64_t maxPoints = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto p = events[i].parent;
    if (p >= 0 && std::size_t(p) < i) {
      t.parents[i] = std::int32_t(p);
      t.childBegin[std::size_t(p) + 1]++;
      t.depth[i] = std::int16_t(std::min<int>(t.depth[std::size_t(p)] + 1, 32767));
    }
    t.maxDepth = std::max<int>(t.maxDepth, t.depth[i]);
    maxPoints = std::max(maxPoints, events[i].points);
  }
  std::partial_sum(t.childBegin.begin(), t.childBegin.end(), t.childBegin.begin());
  t.children.assign(t.childBegin[n], 0);
  {
    std::vector<std::int32_t> fill(t.childBegin.begin(), t.childBegin.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (t.parents[i] >= 0) t.children[std::size_t(fill[std::size_t(t.parents[i])]++)] = std::int32_t(i);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // sqrt so that area, not radius, follows the point count.
    t.size[i] = float(std::sqrt(double(std::max<std::int64_t>(events[i].points, 0)) / double(maxPoints)));
  }

  // Depth-first preorder with an explicit stack (trees can be thousands of levels deep in damaged input).
  std::vector<std::int32_t> preorder;
  preorder.reserve(n);
  std::vector<std::int32_t> stack;
  float nextSlot = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (t.parents[root] >= 0) continue;
    if (!preorder.empty()) nextSlot += 1.f;  // gap between batches
    stack.push_back(std::int32_t(root));
    while (!stack.empty()) {
      const auto v = stack.back();
      stack.pop_back();
      checkStop(stop, preorder.size());
      preorder.push_back(v);
      const auto b = t.childBegin[std::size_t(v)], e = t.childBegin[std::size_t(v) + 1];
      if (b == e) t.x[std::size_t(v)] = nextSlot++;
      for (auto c = e; c > b; --c) stack.push_back(t.children[std::size_t(c - 1)]);
    }
  }
  // Parents after their children: centre over the first and last child.
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    const auto v = std::size_t(*it);
    const auto b = t.childBegin[v], e = t.childBegin[v + 1];
    if (b != e)
      t.x[v] = 0.5f * (t.x[std::size_t(t.children[std::size_t(b)])] +
                       t.x[std::size_t(t.children[std::size_t(e - 1)])]);
  }
  t.width = n ? nextSlot : 0.f;

  t.byX.resize(n);
  std::iota(t.byX.begin(), t.byX.end(), 0);
  std::stable_sort(t.byX.begin(), t.byX.end(),
                   [&](std::int32_t a, std::int32_t b) { return t.x[std::size_t(a)] < t.x[std::size_t(b)]; });
  t.sortedX.resize(n);
  for (std::size_t i = 0; i < n; ++i) t.sortedX[i] = t.x[std::size_t(t.byX[i])];
  return t;
}

}  // namespace oomscope::ui
