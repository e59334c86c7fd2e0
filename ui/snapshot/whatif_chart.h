#pragma once
// The What-if panel's chart: reserved and requested (in use) bytes over the trace, recorded (grey) and
// replayed under the chosen settings (blue, green), on the Active Memory Timeline's axis (raw trace index, -1
// before the first entry), with the capacity and the replay's first OOM marked. The curves come downsampled
// from the worker (ui/snapshot/whatif_view.h); painting only scales them.

#include <QWidget>
#include <memory>

#include "ui/snapshot/whatif_view.h"

namespace oomscope::ui {

class WhatIfChart : public QWidget {
  Q_OBJECT

 public:
  explicit WhatIfChart(QWidget* parent = nullptr);
  void setView(std::shared_ptr<const WhatIfView> view);  // nullptr clears
  const WhatIfView* view() const { return m_view.get(); }
  // The highest byte figure the y axis shows (tests).
  std::uint64_t yMax() const;
  QSize sizeHint() const override { return {900, 300}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRect plotRect() const;
  std::shared_ptr<const WhatIfView> m_view;
};

}  // namespace oomscope::ui
