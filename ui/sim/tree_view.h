#pragma once
// The recursion tree of one run: fragments as nodes (coloured by outcome, area by points), drawn by a plain
// QWidget that paints only what is inside the visible rect.
//
// Positions come precomputed with the run (TreeLayout), so stepping only moves the cursor: attempts up to
// the cursor are coloured, fragments already queued by a failed parent are hollow, the rest of the run is a
// faint preview. When nodes get smaller than a few pixels the view switches to a level-of-detail drawing
// that merges nodes per pixel column and depth (the worst outcome wins), so a 100,000-node tree still
// paints in milliseconds. The wheel zooms horizontally around the mouse (trees are far wider than deep),
// dragging pans, a click selects an attempt.

#include <QWidget>
#include <cstdint>
#include <vector>

#include "ui/sim/coarse_tree_grid.h"
#include "ui/sim/run_data.h"

namespace oomscope::ui {

class SimTreeView : public QWidget {
  Q_OBJECT

 public:
  explicit SimTreeView(QWidget* parent = nullptr);

  void setRun(RunPtr run);
  const RunPtr& run() const { return m_run; }
  void setStep(std::int64_t step);
  std::int64_t step() const { return m_step; }
  void setSelected(std::int64_t eventId);
  std::int64_t selected() const { return m_selected; }
  // Keep the current attempt in view while stepping (on by default; off after the user pans).
  void setFollowCurrent(bool follow) { m_follow = follow; }
  bool followCurrent() const { return m_follow; }

  void fit();
  void zoomBy(double factor, double anchorX);
  // Centres the view on an event (keeping the zoom) when it is not comfortably inside the view.
  void ensureVisible(std::int64_t eventId);

  double pixelsPerSlot() const { return m_sx; }
  bool levelOfDetail() const;
  double lastPaintMs() const { return m_lastPaintMs; }
  std::int64_t lastPaintedNodes() const { return m_lastPaintedNodes; }
  // The reached attempt under a widget position, or -1.
  std::int64_t nodeAt(QPointF pos) const;
  QPointF nodeCenter(std::int64_t eventId) const;

  QSize sizeHint() const override { return {900, 320}; }
  QSize minimumSizeHint() const override { return {240, 140}; }

 signals:
  void nodeClicked(qint64 eventId);
  void viewChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  enum class State : std::uint8_t { Future, Queued, Reached };
  State stateOf(std::int32_t id) const;
  double levelPx() const;
  double nodeRadius(std::int32_t id) const;
  double maxRadius() const;
  double screenX(float x) const { return m_ox + double(x) * m_sx; }
  double screenY(int depth) const { return m_oy + kTop + (double(depth) + 0.5) * levelPx(); }
  void clampOffsets();
  void paintDetailed(class QPainter& p, std::size_t first, std::size_t last);
  void paintCoarse(class QPainter& p, std::size_t first, std::size_t last);
  void paintMarkers(class QPainter& p);
  void paintDepthGuides(class QPainter& p);
  void paintDepthLabels(class QPainter& p);

  static constexpr double kTop = 8, kMargin = 24, kGutter = 62;  // the gutter holds the depth labels

  RunPtr m_run;
  std::int64_t m_step = 0;
  std::int64_t m_reached = 0;  // events logged up to the cursor
  std::int64_t m_current = -1;
  std::int64_t m_selected = -1;
  double m_sx = 20, m_ox = kMargin, m_oy = 0;
  bool m_follow = true;
  bool m_fitPending = true;
  bool m_userZoomed = false;  // after a wheel zoom or a pan, a resize keeps the view instead of re-fitting

  QPointF m_pressPos;
  QPointF m_lastDrag;
  bool m_dragging = false;

  double m_lastPaintMs = 0;
  std::int64_t m_lastPaintedNodes = 0;
  std::vector<std::uint32_t> m_mark;  // per-paint stamp for ancestors of visible nodes
  std::uint32_t m_markGen = 0;
  CoarseTreeGrid m_coarse;  // the level-of-detail picture
};

}  // namespace oomscope::ui
