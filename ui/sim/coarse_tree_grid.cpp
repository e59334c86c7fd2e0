#include "ui/sim/coarse_tree_grid.h"

#include <QPainter>
#include <algorithm>

#include "ui/sim/outcome_style.h"

namespace oomscope::ui {

namespace {

QColor cellColor(std::uint8_t c) {
  using sim::Outcome;
  switch (c) {
    case CoarseTreeGrid::Future:
      return sim_style::futureColor();
    case CoarseTreeGrid::Queued:
      return QColor(0xa9, 0xb1, 0xba);
    case CoarseTreeGrid::Ok:
      return sim_style::outcomeColor(Outcome::Ok);
    case CoarseTreeGrid::Dropped:
      return sim_style::outcomeColor(Outcome::Dropped);
    case CoarseTreeGrid::Oom:
      return sim_style::outcomeColor(Outcome::Oom);
    case CoarseTreeGrid::Bug:
      return sim_style::outcomeColor(Outcome::Bug);
    case CoarseTreeGrid::Crash:
      return sim_style::outcomeColor(Outcome::Crash);
    default:
      return Qt::white;
  }
}

}  // namespace

CoarseTreeGrid::Cell CoarseTreeGrid::cellOf(sim::Outcome outcome) {
  switch (outcome) {
    case sim::Outcome::Ok:
      return Ok;
    case sim::Outcome::Oom:
      return Oom;
    case sim::Outcome::Bug:
      return Bug;
    case sim::Outcome::Dropped:
      return Dropped;
    case sim::Outcome::Crash:
      return Crash;
  }
  return Ok;
}

void CoarseTreeGrid::reset(int width, int rows) {
  m_width = std::max(width, 1);
  m_rows = std::max(rows, 0);
  m_cells.assign(std::size_t(m_width) * std::size_t(m_rows), Empty);
}

void CoarseTreeGrid::mark(int x, int depth, Cell cell) {
  if (x < 0 || x >= m_width || depth < 0 || depth >= m_rows) return;
  auto& c = m_cells[std::size_t(depth) * std::size_t(m_width) + std::size_t(x)];
  c = std::max<std::uint8_t>(c, cell);
}

void CoarseTreeGrid::paint(QPainter& p, double band, int viewHeight,
                           const std::function<double(int)>& rowY) const {
  p.setRenderHint(QPainter::Antialiasing, false);
  for (int d = 0; d < m_rows; ++d) {
    const double cy = rowY(d);
    if (cy + band < 0 || cy - band > viewHeight) continue;
    const std::uint8_t* row = m_cells.data() + std::size_t(d) * std::size_t(m_width);
    for (int x = 0; x < m_width;) {
      if (row[x] == Empty) {
        ++x;
        continue;
      }
      int e = x + 1;
      while (e < m_width && row[e] == row[x]) ++e;
      p.fillRect(QRectF(x, cy - band / 2, std::max(e - x, 2), band), cellColor(row[x]));
      x = e;
    }
  }
}

}  // namespace oomscope::ui
