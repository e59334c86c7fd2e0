#include "ui/sim/tree_view.h"

#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

namespace {

// Below this node radius (pixels) single nodes are no longer legible: draw the merged per-pixel picture.
constexpr double kDetailRadius = 2.2;
constexpr double kMaxSlotPx = 160;

QString compactPoints(std::int64_t p) {
  if (p >= 1'000'000)
    return QString::number(double(p) / 1e6, 'f', p >= 10'000'000 ? 0 : 1) + QStringLiteral("M");
  if (p >= 1'000) return QString::number(double(p) / 1e3, 'f', 0) + QStringLiteral("k");
  return QString::number(p);
}

}  // namespace

SimTreeView::SimTreeView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setAutoFillBackground(false);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::ClickFocus);
  setCursor(Qt::OpenHandCursor);
}

void SimTreeView::setRun(RunPtr run) {
  m_run = std::move(run);
  m_selected = -1;
  m_fitPending = true;
  m_follow = true;
  const std::size_t n = m_run ? m_run->layout.nodeCount() : 0;
  m_mark.assign(n, 0);
  m_markGen = 0;
  setStep(std::min(m_step, m_run ? m_run->steps() : 0));
  if (width() > 0) fit();
  update();
}

void SimTreeView::setStep(std::int64_t step) {
  m_step = m_run ? std::clamp<std::int64_t>(step, 0, m_run->steps()) : 0;
  m_reached = m_run ? m_run->eventsAfter(m_step) : 0;
  m_current = m_run ? m_run->attemptOfStep(m_step) : -1;
  if (m_follow && m_current >= 0 && !m_fitPending) ensureVisible(m_current);
  update();
}

void SimTreeView::setSelected(std::int64_t eventId) {
  if (eventId == m_selected) return;
  m_selected = eventId;
  update();
}

SimTreeView::State SimTreeView::stateOf(std::int32_t id) const {
  if (id < m_reached) return State::Reached;
  const auto parent = m_run->layout.parents[std::size_t(id)];
  return parent >= 0 && parent < m_reached ? State::Queued : State::Future;
}

double SimTreeView::levelPx() const {
  const int levels = m_run ? m_run->layout.maxDepth + 1 : 1;
  return std::clamp((double(height()) - kTop - 8) / double(levels), 18.0, 72.0);
}

double SimTreeView::maxRadius() const { return std::min({0.46 * m_sx, 0.32 * levelPx(), 15.0}); }

double SimTreeView::nodeRadius(std::int32_t id) const {
  return std::max(1.5, maxRadius() * (0.35 + 0.65 * double(m_run->layout.size[std::size_t(id)])));
}

bool SimTreeView::levelOfDetail() const { return maxRadius() < kDetailRadius; }

void SimTreeView::fit() {
  m_fitPending = false;
  m_userZoomed = false;
  m_oy = 0;
  if (!m_run || m_run->layout.nodeCount() == 0) {
    m_sx = 20;
    m_ox = kMargin;
    update();
    return;
  }
  const double span = std::max(double(m_run->layout.width) - 1.0, 0.0);
  const double avail = std::max(double(width()) - kGutter - kMargin, 10.0);
  m_sx = span > 0 ? std::min(64.0, avail / span) : 64.0;
  m_ox = kGutter + (avail - span * m_sx) / 2;
  update();
  emit viewChanged();
}

void SimTreeView::clampOffsets() {
  if (!m_run) return;
  const double span = std::max(double(m_run->layout.width) - 1.0, 0.0) * m_sx;
  // Keep at least a third of the view on the tree.
  m_ox = std::clamp(m_ox, double(width()) / 3 - span, 2 * double(width()) / 3);
  const double contentH = kTop + double(m_run->layout.maxDepth + 1) * levelPx() + 8;
  m_oy = contentH <= height() ? 0 : std::clamp(m_oy, double(height()) - contentH, 0.0);
}

void SimTreeView::zoomBy(double factor, double anchorX) {
  if (!m_run) return;
  const double span = std::max(double(m_run->layout.width) - 1.0, 1.0);
  const double minSx = std::min(0.8 * (double(width()) - kGutter - kMargin) / span, 20.0);
  const double sx = std::clamp(m_sx * factor, minSx, kMaxSlotPx);
  const double worldX = (anchorX - m_ox) / m_sx;
  m_sx = sx;
  m_ox = anchorX - worldX * m_sx;
  m_userZoomed = true;
  clampOffsets();
  update();
  emit viewChanged();
}

void SimTreeView::ensureVisible(std::int64_t eventId) {
  if (!m_run || eventId < 0 || std::size_t(eventId) >= m_run->layout.nodeCount()) return;
  // A fitted view shows everything already; moving it would only make the tree drift while stepping.
  if (!m_userZoomed) return;
  const double x = screenX(m_run->layout.x[std::size_t(eventId)]);
  if (x < kGutter || x > double(width()) - kMargin) m_ox += (double(width()) + kGutter) / 2 - x;
  const double y = screenY(m_run->layout.depth[std::size_t(eventId)]);
  if (y < kTop || y > double(height()) - levelPx() / 2) m_oy += double(height()) / 2 - y;
  clampOffsets();
  update();
}

QPointF SimTreeView::nodeCenter(std::int64_t eventId) const {
  if (!m_run || eventId < 0 || std::size_t(eventId) >= m_run->layout.nodeCount()) return {};
  return {screenX(m_run->layout.x[std::size_t(eventId)]), screenY(m_run->layout.depth[std::size_t(eventId)])};
}

std::int64_t SimTreeView::nodeAt(QPointF pos) const {
  if (!m_run || m_run->layout.nodeCount() == 0) return -1;
  const auto& L = m_run->layout;
  const int depth = int(std::floor((pos.y() - m_oy - kTop) / levelPx()));
  if (depth < 0 || depth > L.maxDepth) return -1;
  const double tol = std::max(maxRadius(), 5.0) + 2;
  const double wx = (pos.x() - m_ox) / m_sx;
  const auto [first, last] = L.rangeX(float(wx - tol / m_sx), float(wx + tol / m_sx));
  std::int64_t best = -1;
  double bestD = tol * tol;
  for (std::size_t k = first; k < last; ++k) {
    const auto id = L.byX[k];
    if (L.depth[std::size_t(id)] != depth || id >= m_reached) continue;
    const double dx = screenX(L.x[std::size_t(id)]) - pos.x(), dy = screenY(depth) - pos.y();
    const double d = dx * dx + dy * dy;
    if (d <= bestD) {
      bestD = d;
      best = id;
    }
  }
  return best;
}

void SimTreeView::resizeEvent(QResizeEvent*) {
  if (m_fitPending || !m_userZoomed || !m_run)
    fit();
  else
    clampOffsets();
  if (m_follow && m_current >= 0) ensureVisible(m_current);
}

void SimTreeView::wheelEvent(QWheelEvent* event) {
  const double steps = double(event->angleDelta().y()) / 120.0;
  if (steps == 0) return;
  zoomBy(std::pow(1.25, steps), event->position().x());
  event->accept();
}

void SimTreeView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_pressPos = m_lastDrag = event->position();
  m_dragging = false;
}

void SimTreeView::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton)) return;
  if (!m_dragging && (event->position() - m_pressPos).manhattanLength() < 4) return;
  if (!m_dragging) setCursor(Qt::ClosedHandCursor);
  m_dragging = true;
  m_follow = false;  // the user took the camera
  m_userZoomed = true;
  const QPointF d = event->position() - m_lastDrag;
  m_lastDrag = event->position();
  m_ox += d.x();
  m_oy += d.y();
  clampOffsets();
  update();
  emit viewChanged();
}

void SimTreeView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  setCursor(Qt::OpenHandCursor);
  if (!m_dragging) emit nodeClicked(qint64(nodeAt(event->position())));
  m_dragging = false;
}

void SimTreeView::mouseDoubleClickEvent(QMouseEvent*) {
  m_follow = true;
  fit();
}

// The nodes in [first, last) merged per pixel column and depth (coarse_tree_grid.h).
void SimTreeView::paintCoarse(QPainter& p, std::size_t first, std::size_t last) {
  const auto& L = m_run->layout;
  const auto& events = m_run->log.events;
  m_coarse.reset(width(), L.maxDepth + 1);
  for (std::size_t k = first; k < last; ++k) {
    const auto v = L.byX[k];
    const State st = stateOf(v);
    const CoarseTreeGrid::Cell c = st == State::Reached
                                       ? CoarseTreeGrid::cellOf(events[std::size_t(v)].outcome)
                                   : st == State::Queued ? CoarseTreeGrid::Queued
                                                         : CoarseTreeGrid::Future;
    m_coarse.mark(int(screenX(L.x[std::size_t(v)])), L.depth[std::size_t(v)], c);
  }
  m_coarse.paint(p, std::clamp(levelPx() * 0.42, 3.0, 12.0), height(), [this](int d) { return screenY(d); });
}

void SimTreeView::paintEvent(QPaintEvent*) {
  QElapsedTimer clock;
  clock.start();
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (!m_run || m_run->layout.nodeCount() == 0) {
    p.setPen(QColor(0x6b, 0x74, 0x80));
    p.drawText(rect(), Qt::AlignCenter, m_run ? tr("This run has no attempts.") : tr("No run yet."));
    m_lastPaintMs = double(clock.nsecsElapsed()) * 1e-6;
    return;
  }
  if (m_fitPending) fit();
  paintDepthGuides(p);
  const double pad = maxRadius() + 2;
  const auto [first, last] =
      m_run->layout.rangeX(float((-pad - m_ox) / m_sx), float((width() + pad - m_ox) / m_sx));
  if (levelOfDetail())
    paintCoarse(p, first, last);
  else
    paintDetailed(p, first, last);
  paintMarkers(p);
  paintDepthLabels(p);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setPen(QColor(0xd0, 0xd5, 0xdb));
  p.setBrush(Qt::NoBrush);
  p.drawRect(rect().adjusted(0, 0, -1, -1));
  m_lastPaintedNodes = std::int64_t(last - first);
  m_lastPaintMs = double(clock.nsecsElapsed()) * 1e-6;
}

void SimTreeView::paintDepthGuides(QPainter& p) {
  const double lp = levelPx();
  for (int d = 1; d <= m_run->layout.maxDepth; d += 2) {
    const double top = m_oy + kTop + d * lp;
    if (top <= height() && top + lp >= 0) p.fillRect(QRectF(0, top, width(), lp), QColor(0xf6, 0xf7, 0xf9));
  }
}

void SimTreeView::paintDepthLabels(QPainter& p) {
  // Drawn last, on a light backing, so they stay readable when the tree is panned under the gutter.
  const double lp = levelPx();
  if (lp < 18) return;
  QFont f = font();
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
  p.setFont(f);
  const QFontMetricsF fm(f);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (int d = 0; d <= m_run->layout.maxDepth; ++d) {
    const double top = m_oy + kTop + d * lp;
    if (top > height() || top + lp < 0) continue;
    const QString text = d == 0 ? tr("batch") : tr("depth %1").arg(d);
    const QRectF box(3, top + lp / 2 - fm.height() / 2 - 1, fm.horizontalAdvance(text) + 6, fm.height() + 2);
    p.fillRect(box, QColor(255, 255, 255, 215));
    p.setPen(QColor(0x7a, 0x83, 0x8d));
    p.drawText(box, Qt::AlignCenter, text);
  }
}

void SimTreeView::paintDetailed(QPainter& p, std::size_t first, std::size_t last) {
  const auto& L = m_run->layout;
  const auto& events = m_run->log.events;
  // Edges: every visible node and its ancestors draw the elbow down to their children, so a bar that
  // crosses the view is drawn even when both ends are outside it.
  if (++m_markGen == 0) {
    std::fill(m_mark.begin(), m_mark.end(), 0);
    m_markGen = 1;
  }
  QVector<QLineF> solid, faint;
  const double half = levelPx() / 2;
  auto addElbow = [&](std::int32_t v) {
    const auto b = L.childBegin[std::size_t(v)], e = L.childBegin[std::size_t(v) + 1];
    if (b == e) return;
    auto& lines = v < m_reached ? solid : faint;
    const double px = screenX(L.x[std::size_t(v)]), py = screenY(L.depth[std::size_t(v)]);
    const double barY = py + half;
    const double x0 = std::max(screenX(L.x[std::size_t(L.children[std::size_t(b)])]), -10.0);
    const double x1 = std::min(screenX(L.x[std::size_t(L.children[std::size_t(e - 1)])]), width() + 10.0);
    lines.append(QLineF(px, py, px, barY));
    if (x1 > x0) lines.append(QLineF(x0, barY, x1, barY));
  };
  for (std::size_t k = first; k < last; ++k) {
    for (auto v = L.byX[k]; v >= 0 && m_mark[std::size_t(v)] != m_markGen; v = L.parents[std::size_t(v)]) {
      m_mark[std::size_t(v)] = m_markGen;
      addElbow(v);
    }
    const auto v = L.byX[k];
    const auto parent = L.parents[std::size_t(v)];
    if (parent >= 0) {
      const double cx = screenX(L.x[std::size_t(v)]), cy = screenY(L.depth[std::size_t(v)]);
      (parent < m_reached ? solid : faint).append(QLineF(cx, cy - half, cx, cy));
    }
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setPen(QPen(sim_style::futureColor(), 1));
  p.drawLines(faint);
  p.setPen(QPen(sim_style::edgeColor(), 1.2));
  p.drawLines(solid);

  p.setRenderHint(QPainter::Antialiasing, true);
  const bool labels = m_sx >= 48 && levelPx() >= 40;
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1.5));
  p.setFont(small);
  const QColor queuedPen(0x6b, 0x74, 0x80);
  for (std::size_t k = first; k < last; ++k) {
    const auto v = L.byX[k];
    const double cy = screenY(L.depth[std::size_t(v)]);
    const double r = nodeRadius(v);
    if (cy + r < 0 || cy - r > height()) continue;
    const QPointF c(screenX(L.x[std::size_t(v)]), cy);
    const State st = stateOf(v);
    if (st == State::Reached) {
      const QColor col = sim_style::outcomeColor(events[std::size_t(v)].outcome);
      p.setPen(QPen(col.darker(140), 1));
      p.setBrush(col);
    } else if (st == State::Queued) {
      p.setPen(QPen(queuedPen, 1.4, Qt::DashLine));
      p.setBrush(Qt::white);
    } else {
      p.setPen(QPen(sim_style::futureColor(), 1));
      p.setBrush(QColor(0xf3, 0xf4, 0xf6));
    }
    p.drawEllipse(c, r, r);
    if (labels && st != State::Future) {
      p.setPen(QColor(0x3c, 0x44, 0x4f));
      p.drawText(QRectF(c.x() - m_sx / 2, c.y() + r + 1, m_sx, 14), Qt::AlignHCenter | Qt::AlignTop,
                 compactPoints(events[std::size_t(v)].points));
    }
  }
}

void SimTreeView::paintMarkers(QPainter& p) {
  p.setRenderHint(QPainter::Antialiasing, true);
  const bool coarse = levelOfDetail();
  auto ring = [&](std::int64_t id, const QPen& pen, double extra) {
    if (id < 0 || std::size_t(id) >= m_run->layout.nodeCount()) return;
    const QPointF c = nodeCenter(id);
    const double r = (coarse ? 4.0 : nodeRadius(std::int32_t(id))) + extra;
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(c, r, r);
  };
  if (m_current >= 0 && coarse) {
    // In a tree thousands of nodes wide the ring alone is lost: a guide line finds it.
    const QPointF c = nodeCenter(m_current);
    QColor guide = sim_style::currentRing();
    guide.setAlpha(70);
    p.setPen(QPen(guide, 1));
    p.drawLine(QPointF(c.x(), 0), QPointF(c.x(), height()));
  }
  ring(m_selected, QPen(QColor(0x20, 0x24, 0x2a), 1.5, Qt::DashLine), 6);
  ring(m_current, QPen(sim_style::currentRing(), 2.5), 3.5);
}

}  // namespace oomscope::ui
