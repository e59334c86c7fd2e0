#pragma once
// Two recordings' lines on one axis (core/live/client/recording_overlay.h), painted: a rank's allocated
// (solid) and reserved (dashed) bytes of run A (blue) and run B (orange, shifted as core placed it), the
// x axis in steps or seconds as core aligned them, a legend naming both files. Draws exactly the points
// core cut; it computes nothing.

#include <QString>
#include <QWidget>
#include <memory>

#include "core/live/client/recording_overlay.h"

namespace oomscope::ui {

class RecordingOverlayChart : public QWidget {
  Q_OBJECT

 public:
  explicit RecordingOverlayChart(QWidget* parent = nullptr);
  void setOverlay(std::shared_ptr<const live::RecordingOverlay> overlay, const QString& nameA,
                  const QString& nameB);
  const live::RecordingOverlay* overlay() const { return m_overlay.get(); }
  QSize sizeHint() const override { return {760, 300}; }
  QSize minimumSizeHint() const override { return {360, 200}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::shared_ptr<const live::RecordingOverlay> m_overlay;
  QString m_nameA, m_nameB;
};

// About `count` round values over [lo, hi] (steps, seconds or bytes): 1, 2 or 5 times a power of ten.
std::vector<double> overlayTicks(double lo, double hi, int count = 5);

}  // namespace oomscope::ui
