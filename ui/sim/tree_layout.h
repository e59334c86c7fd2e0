#pragma once
// Where each attempt of a run sits in the recursion-tree drawing, computed once per run (on the worker).
//
// Leaves get consecutive horizontal slots in depth-first order and every parent is centred over its first
// and last child, so a subtree always occupies one contiguous x range: the horizontal position never
// changes while the user steps, and the drawing can cull by x with a binary search over nodes sorted by x.
// Batches (the roots) follow each other left to right, one empty slot apart.

#include <cstdint>
#include <stop_token>
#include <utility>
#include <vector>

#include "core/sim/event.h"

namespace oomscope::ui {

struct TreeLayout {
  std::vector<float> x;                  // in slots
  std::vector<std::int16_t> depth;       // recomputed from parents (traces may carry none)
  std::vector<float> size;               // 0..1: sqrt(points / largest points), the node's relative radius
  std::vector<std::int32_t> childBegin;  // children of i: children[childBegin[i] .. childBegin[i + 1])
  std::vector<std::int32_t> children;
  std::vector<std::int32_t> byX;  // node ids sorted by x
  std::vector<float> sortedX;     // x of byX, for the binary search
  float width = 0;                // slots used (last x + 1)
  int maxDepth = 0;

  std::size_t nodeCount() const { return x.size(); }
  // [first, last) positions in byX of nodes whose x lies in [x0, x1].
  std::pair<std::size_t, std::size_t> rangeX(float x0, float x1) const;
  std::int32_t parentOf(std::int32_t id) const { return parents[std::size_t(id)]; }
  std::vector<std::int32_t> parents;
};

// Throws oomscope::Cancelled when stop is requested (checked every few thousand nodes).
TreeLayout layoutTree(const sim::EventLog& log, const std::stop_token& stop = {});

}  // namespace oomscope::ui
