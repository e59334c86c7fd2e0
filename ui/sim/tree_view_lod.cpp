// The level-of-detail drawing of SimTreeView: used when nodes would be smaller than a few pixels.
#include <QPainter>
#include <algorithm>

#include "ui/sim/outcome_style.h"
#include "ui/sim/tree_view.h"

namespace oomscope::ui {

namespace {

// Severity order for the level-of-detail grid: the worst outcome in a pixel is the one shown.
enum Cell : std::uint8_t { Empty, Future, Queued, Ok, Dropped, Oom, Bug, Crash };

QColor cellColor(std::uint8_t c) {
  using sim::Outcome;
  switch (c) {
    case Future:
      return sim_style::futureColor();
    case Queued:
      return QColor(0xa9, 0xb1, 0xba);
    case Ok:
      return sim_style::outcomeColor(Outcome::Ok);
    case Dropped:
      return sim_style::outcomeColor(Outcome::Dropped);
    case Oom:
      return sim_style::outcomeColor(Outcome::Oom);
    case Bug:
      return sim_style::outcomeColor(Outcome::Bug);
    case Crash:
      return sim_style::outcomeColor(Outcome::Crash);
    default:
      return Qt::white;
  }
}

std::uint8_t cellOf(sim::Outcome o) {
  switch (o) {
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

}  // namespace

// One cell per pixel column and depth; the worst outcome in a cell is the one drawn, so a single OOM or bug
// among thousands of ok nodes stays visible. Runs of equal cells become one rectangle.
void SimTreeView::paintCoarse(QPainter& p, std::size_t first, std::size_t last) {
  const auto& L = m_run->layout;
  const auto& events = m_run->log.events;
  const int w = std::max(width(), 1);
  const int rows = L.maxDepth + 1;
  m_cells.assign(std::size_t(w) * std::size_t(rows), Empty);
  for (std::size_t k = first; k < last; ++k) {
    const auto v = L.byX[k];
    const int px = int(screenX(L.x[std::size_t(v)]));
    if (px < 0 || px >= w) continue;
    const State st = stateOf(v);
    const std::uint8_t c = st == State::Reached  ? cellOf(events[std::size_t(v)].outcome)
                           : st == State::Queued ? std::uint8_t(Queued)
                                                 : std::uint8_t(Future);
    auto& cell = m_cells[std::size_t(L.depth[std::size_t(v)]) * std::size_t(w) + std::size_t(px)];
    cell = std::max(cell, c);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  const double h = std::clamp(levelPx() * 0.42, 3.0, 12.0);
  for (int d = 0; d < rows; ++d) {
    const double cy = screenY(d);
    if (cy + h < 0 || cy - h > height()) continue;
    const std::uint8_t* row = m_cells.data() + std::size_t(d) * std::size_t(w);
    for (int x = 0; x < w;) {
      if (row[x] == Empty) {
        ++x;
        continue;
      }
      int e = x + 1;
      while (e < w && row[e] == row[x]) ++e;
      p.fillRect(QRectF(x, cy - h / 2, std::max(e - x, 2), h), cellColor(row[x]));
      x = e;
    }
  }
}

}  // namespace oomscope::ui
