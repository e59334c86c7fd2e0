#pragma once
// The right-hand side of the Simulator page: the memory gauges of runs A and B, the counters of both
// runs (SimTotalsModel), and below them, one tab at a time, the selected attempt's details and the other
// schedules (SimAlternatives). The page says what to show; this panel only lays it out.

#include <QWidget>
#include <array>
#include <cstdint>

#include "ui/sim/run_data.h"

class QLabel;
class QTextBrowser;

namespace oomscope::ui {

class SimAlternatives;
class SimMemoryGauge;
class SimTotalsModel;

class SimSidePanel : public QWidget {
  Q_OBJECT

 public:
  // The gauges are made by the runs' panes (SimRunPane); the panel takes them into its layout.
  SimSidePanel(const std::array<SimMemoryGauge*, 2>& gauges, SimTotalsModel* totals,
               QWidget* parent = nullptr);

  SimAlternatives* alternatives() const { return m_alternatives; }
  // No run in the slot the details follow.
  void showNoRun();
  // Attempt `id` (-1: none yet) of `run` (slot `letter`) at step `step`; `following`: the details follow
  // the current attempt rather than one the user pinned.
  void showAttempt(const RunData& run, const QString& letter, std::int64_t id, std::int64_t step,
                   bool following);
  QString detailsText() const;
  QString alternativesText() const;

 private:
  QTextBrowser* m_details = nullptr;
  QLabel* m_detailsTitle = nullptr;
  SimAlternatives* m_alternatives = nullptr;
};

}  // namespace oomscope::ui
