#pragma once
// The Plan page: heap size of the analysed module's plan over program order (peak marked, pool line when in
// range; wheel zooms, drag pans), and under it the role split at the peak as one stacked bar.

#include <QWidget>
#include <memory>

class QLabel;
class QStackedWidget;

namespace oomscope::ui {
class RangeBanner;

struct AnalysisResult;
class PlanCurveChart;
class RoleBarChart;
class ZoomChartView;

class PlanPage : public QWidget {
  Q_OBJECT

 public:
  explicit PlanPage(QWidget* parent = nullptr);

  void setResult(const std::shared_ptr<const AnalysisResult>& result);
  void clear();

  PlanCurveChart* curve() const { return m_curve; }
  RoleBarChart* roles() const { return m_roles; }
  ZoomChartView* curveView() const { return m_curveView; }
  QString summaryText() const;
  RangeBanner* rangeBanner() const { return m_banner; }
  bool showsChart() const;
  // Shades the program positions of one instruction (first to last trace event); returns false when the
  // plan has no such instruction.
  // shade = false only names it (the buffer it allocates is shaded instead).
  bool selectInstruction(const QString& instruction, bool shade = true);
  QString selectedInstruction() const { return m_selectedInstruction; }
  // Shades positions [from, to] (to < 0: to the end) under `label`; from < 0 clears.
  void highlightPositions(qint64 from, qint64 to, const QString& label);

 signals:
  // Shift+drag on the curve: a program-order range (trace positions, inclusive).
  void positionRangeSelected(qint64 from, qint64 to);

 private:
  PlanCurveChart* m_curve = nullptr;
  RoleBarChart* m_roles = nullptr;
  ZoomChartView* m_curveView = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_empty = nullptr;
  RangeBanner* m_banner = nullptr;
  QStackedWidget* m_stack = nullptr;
  std::shared_ptr<const AnalysisResult> m_result;
  QString m_selectedInstruction;
};

}  // namespace oomscope::ui
