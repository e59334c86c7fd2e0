#pragma once
// The Plan page: heap size of the analysed module's plan over program order (peak marked, pool line when in
// range; wheel zooms, drag pans), and under it the role split at the peak as one stacked bar.

#include <QWidget>
#include <memory>

class QLabel;
class QStackedWidget;

namespace oomscope::ui {

struct AnalysisResult;
class PlanCurveChart;
class RoleBarChart;
class ZoomChartView;

class PlanPage : public QWidget {
  Q_OBJECT

 public:
  explicit PlanPage(QWidget* parent = nullptr);

  void setResult(std::shared_ptr<const AnalysisResult> result);
  void clear();

  PlanCurveChart* curve() const { return m_curve; }
  RoleBarChart* roles() const { return m_roles; }
  ZoomChartView* curveView() const { return m_curveView; }
  QString summaryText() const;
  bool showsChart() const;

 private:
  PlanCurveChart* m_curve = nullptr;
  RoleBarChart* m_roles = nullptr;
  ZoomChartView* m_curveView = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_empty = nullptr;
  QStackedWidget* m_stack = nullptr;
};

}  // namespace oomscope::ui
