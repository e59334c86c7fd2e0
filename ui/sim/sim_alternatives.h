#pragma once
// The Simulator page's "Other schedules" tab: run A beside the same scenes and epochs trained without
// split-and-retry (the lazy fix, micro-batches with accumulation), as the trace's or the simulator's
// baselines price them. Empty without a run; a trace without baselines says so.

#include <QLabel>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

class SimAlternatives : public QLabel {
  Q_OBJECT

 public:
  explicit SimAlternatives(QWidget* parent = nullptr);

  void setRun(const RunPtr& run);
};

}  // namespace oomscope::ui
