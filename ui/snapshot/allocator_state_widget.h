#pragma once
// The allocator's segments at one trace index, drawn as horizontal bars (largest segment first, the
// width proportional to its size) with their live blocks inside: the requested bytes in colour, the
// rounding slack in orange, blocks freed but pending a stream event in red, free space in light grey.
// Hovering names the segment or block.

#include <QWidget>
#include <memory>

#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::ui {

class AllocatorStateWidget : public QWidget {
  Q_OBJECT
 public:
  explicit AllocatorStateWidget(QWidget* parent = nullptr);
  void setState(std::shared_ptr<const snapshot::Snapshot> snap,
                std::shared_ptr<const snapshot::AllocatorState> state);
  QString describeAt(QPoint p) const;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  static constexpr int kRow = 18, kLabel = 150, kTop = 6;
  double scale() const;
  std::shared_ptr<const snapshot::Snapshot> m_snap;
  std::shared_ptr<const snapshot::AllocatorState> m_state;
  std::vector<std::size_t> m_order;  // segments, largest first
};

}  // namespace oomscope::ui
