#pragma once
// The level-of-detail picture of the recursion tree (SimTreeView, when nodes would be smaller than a few
// pixels): one cell per pixel column and depth holding the worst state of the nodes that fall in it, so a
// single OOM or bug among thousands of ok nodes stays visible; runs of equal cells are drawn as one
// rectangle. The view marks the nodes in its visible range, then paints the grid.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/sim/event.h"

class QPainter;

namespace oomscope::ui {

class CoarseTreeGrid {
 public:
  // Severity order: the worst state in a cell is the one shown.
  enum Cell : std::uint8_t { Empty, Future, Queued, Ok, Dropped, Oom, Bug, Crash };

  static Cell cellOf(sim::Outcome outcome);

  // Empties the grid and sizes it to `width` pixel columns and `rows` depths.
  void reset(int width, int rows);
  // Records a node of state `cell` at pixel column `x` (those outside the grid are ignored) and `depth`.
  void mark(int x, int depth, Cell cell);
  // Draws every row whose band (centre rowY(depth), height `band`) meets [0, viewHeight).
  void paint(QPainter& p, double band, int viewHeight, const std::function<double(int)>& rowY) const;

 private:
  int m_width = 0;
  int m_rows = 0;
  std::vector<std::uint8_t> m_cells;  // m_rows rows of m_width cells
};

}  // namespace oomscope::ui
