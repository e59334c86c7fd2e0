#pragma once
// The Active Memory Timeline of a snapshot: live allocations stacked in allocation order over the raw
// trace index. The largest N are drawn as bands of their own; the rest are one grey "summarised" band
// at the bottom. Each pixel column shows the event at which memory was highest within it, so the peak
// is never lost when zoomed out. The wheel zooms around the cursor (down to a few events per screen, so
// every event is reachable), dragging pans, hovering shows a band's size and stack, clicking selects the
// event (eventSelected). The OOM entry and the peak are marked.

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "ui/snapshot/snapshot_document.h"

namespace oomscope::ui {

class MemoryTimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryTimelineWidget(QWidget* parent = nullptr);
  void setDocument(std::shared_ptr<const SnapshotDocument> doc);
  void setMaxDrawn(int n);
  int maxDrawn() const { return m_maxDrawn; }

  // Visible index range [lo, hi] (raw trace indexes; -1 is "before the first entry").
  double rangeLo() const { return m_lo; }
  double rangeHi() const { return m_hi; }
  void setRange(double lo, double hi);
  void resetZoom();
  void zoomAt(double centerIndex, double factor);

  std::int64_t selectedIndex() const { return m_selected; }
  void setSelectedIndex(std::int64_t index);

  // What hovering at widget position p would show (empty over nothing); public for tests.
  QString describeAt(QPoint p) const;
  // The event a pixel column shows.
  std::int64_t indexAtX(int x) const;
  QSize sizeHint() const override { return {900, 420}; }

 signals:
  void eventSelected(qint64 index);
  void rangeChanged(double lo, double hi);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  QRect plotRect() const;
  double xOf(double index) const;
  double indexOf(double x) const;
  double yOf(double bytes) const;
  std::int64_t minIndex() const { return -1; }
  std::int64_t maxIndex() const;
  std::int64_t totalAt(std::int64_t index) const;
  void rebuildDrawn();

  std::shared_ptr<const SnapshotDocument> m_doc;
  const snapshot::Timeline* m_timeline = nullptr;
  std::vector<std::uint32_t> m_drawn;  // element indexes drawn as bands, in allocation order
  int m_maxDrawn = 50;
  double m_lo = -1, m_hi = 0;
  std::int64_t m_selected = -1;
  std::optional<QPoint> m_dragFrom;
  double m_dragLo = 0, m_dragHi = 0;
  bool m_dragged = false;
};

}  // namespace oomscope::ui
