#pragma once
// Bytes the current attempt needs against the GPU budget: the budget as a frame, the part a previous OOM
// left fragmented hatched at its end, the attempt's need as a bar that turns red when it does not fit in
// what is available. Exact byte counts in the tooltip.

#include <QWidget>
#include <cstdint>

#include "core/sim/event.h"

namespace oomscope::ui {

class SimMemoryGauge : public QWidget {
  Q_OBJECT

 public:
  explicit SimMemoryGauge(QWidget* parent = nullptr);

  // The attempt shown; a dropped fragment or "no attempt yet" shows the budget only.
  void setAttempt(const sim::Event* event, const QString& runLabel);
  void clear(const QString& runLabel);

  bool overBudget() const { return m_has && m_needed > m_available; }
  QString summary() const;

  QSize sizeHint() const override { return {340, 66}; }
  QSize minimumSizeHint() const override { return {200, 66}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString m_label;
  bool m_has = false;
  bool m_dropped = false;
  std::int64_t m_event = -1;
  std::int64_t m_needed = 0, m_available = 0, m_budget = 0;
};

}  // namespace oomscope::ui
