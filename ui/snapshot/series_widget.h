#pragma once
// Memory over time for a Kineto trace or a raw memory timeline: a step line of live bytes (the maximum of
// each pixel column, so peaks survive zooming out) with red [OutOfMemory] markers. The wheel zooms.

#include <QWidget>
#include <memory>

#include "ui/snapshot/snapshot_document.h"

namespace oomscope::ui {

class SeriesWidget : public QWidget {
  Q_OBJECT
 public:
  explicit SeriesWidget(QWidget* parent = nullptr);
  void setDocument(std::shared_ptr<const SnapshotDocument> doc);
  QSize sizeHint() const override { return {900, 380}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  QRect plotRect() const { return rect().adjusted(78, 24, -14, -30); }
  std::shared_ptr<const SnapshotDocument> m_doc;
  double m_lo = 0, m_hi = 1, m_max = 1;
};

}  // namespace oomscope::ui
