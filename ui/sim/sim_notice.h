#pragma once
// The Simulator page's notice above the trees: what the page could not keep of a run (a run too large to
// keep whole), and how a real run (A) and its prediction (B) agree. Hidden when it has nothing to say.

#include <QLabel>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

class SimNotice : public QLabel {
  Q_OBJECT

 public:
  explicit SimNotice(QWidget* parent = nullptr);

  // Says what there is to say about runs A and B; `predicting`: B is the prediction of the real run A.
  void showRuns(const RunPtr& a, const RunPtr& b, bool predicting);
  // The notice's text, or empty while it is hidden.
  QString shownText() const { return isHidden() ? QString() : text(); }
};

}  // namespace oomscope::ui
