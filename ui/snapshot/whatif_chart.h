#pragma once
// The What-if panel's chart: reserved and requested (in use) bytes over the trace, recorded (grey) and
// replayed under the chosen settings (blue, green), on the Active Memory Timeline's axis (raw trace index, -1
// before the first entry, labelled "start"), with the capacity and the replay's first OOM marked. It shows
// the index range [rangeLo, rangeHi] that the snapshot window's timeline shows (the window keeps the two in
// step: setRange() follows the timeline, rangeChanged() is emitted when the user zooms or pans here). The
// curves come from the worker in full and downsampled over the whole trace; a zoomed range is downsampled
// again from the full curves (every peak kept), so painting only scales them.

#include <QWidget>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ui/snapshot/whatif_view.h"

namespace oomscope::ui {

class WhatIfChart : public QWidget {
  Q_OBJECT

 public:
  explicit WhatIfChart(QWidget* parent = nullptr);
  void setView(std::shared_ptr<const WhatIfView> view);  // nullptr clears; keeps the range shown
  const WhatIfView* view() const { return m_view.get(); }
  // The highest byte figure the y axis shows (tests).
  std::uint64_t yMax() const;
  QSize sizeHint() const override { return {900, 300}; }

  // The index range shown (raw trace indexes; -1 is "before the first entry"), as the timeline's.
  double rangeLo() const { return m_lo; }
  double rangeHi() const { return m_hi; }
  // Shows [lo, hi] (clamped to the trace as the timeline clamps it); emits nothing.
  void setRange(double lo, double hi);
  void resetZoom();
  // What is drawn for the range: the curves downsampled to it.
  const std::vector<allocator::CurvePoint>& shownRecorded() const { return m_shownRecorded; }
  const std::vector<allocator::CurvePoint>& shownReplayed() const { return m_shownReplayed; }
  // The x axis' ticks: the trace index each stands at and its label ("start" for -1, "entry N").
  std::vector<std::pair<std::int64_t, QString>> axisTicks() const;

 signals:
  void rangeChanged(double lo, double hi);  // the user zoomed or panned this chart

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  QRect plotRect() const;
  double xOf(double index) const;
  double lastIndex() const {
    return m_view ? static_cast<double>(std::max<std::int64_t>(0, m_view->lastIndex)) : 0;
  }
  void clampRange(double lo, double hi);
  void rebuildShown();
  void userRange(double lo, double hi);

  std::shared_ptr<const WhatIfView> m_view;
  double m_lo = -1, m_hi = 0;
  bool m_whole = true;  // following the whole trace (no zoom set yet)
  std::vector<allocator::CurvePoint> m_shownRecorded, m_shownReplayed;
  std::optional<int> m_dragFrom;
  double m_dragLo = 0, m_dragHi = 0;
};

}  // namespace oomscope::ui
