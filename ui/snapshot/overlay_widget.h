#pragma once
// Two Active Memory Timelines on one axis (RunOverlay): A in blue, B in orange, B placed by the alignment
// core chose (step markers, else time, else trace entry) plus the user's shift; each run's peak marked with
// its bytes. The series come downsampled from core; this only draws.

#include <QWidget>
#include <memory>

#include "ui/snapshot/run_overlay_result.h"

namespace oomscope::ui {

class OverlayWidget : public QWidget {
  Q_OBJECT

 public:
  explicit OverlayWidget(QWidget* parent = nullptr);
  void setResult(std::shared_ptr<const RunOverlayResult> result);
  // Extra shift of B along the x axis, in the axis' unit (µs for time and step, entries otherwise).
  void setShift(double shift);
  double shift() const { return m_shift; }
  // B's x of a point of B's own series on the shared axis.
  double placedB(double x) const;
  QSize sizeHint() const override { return {900, 360}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRect plotRect() const;
  std::shared_ptr<const RunOverlayResult> m_result;
  double m_shift = 0;
};

}  // namespace oomscope::ui
