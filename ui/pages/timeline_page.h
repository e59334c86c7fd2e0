#pragma once
// The Timeline page: bytes in use per allocator over the capture's time, the analysed module's executions
// as bands, AllocatorRetry waits and never-launched executions as red marks, the pool line when in range.
// Wheel zooms and drag pans the time axis; "Fit executions" zooms onto the module's executions.

#include <QWidget>
#include <memory>

class QLabel;
class QPushButton;
class QStackedWidget;

namespace oomscope::ui {

struct AnalysisResult;
class TimelineChart;
class ZoomChartView;

class TimelinePage : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePage(QWidget* parent = nullptr);

  void setResult(std::shared_ptr<const AnalysisResult> result);
  void clear();
  // Zooms the time axis onto the analysed module's executions (with a margin).
  void fitExecutions();

  TimelineChart* chart() const { return m_chart; }
  ZoomChartView* view() const { return m_view; }
  QString summaryText() const;
  bool showsChart() const;

 private:
  TimelineChart* m_chart = nullptr;
  ZoomChartView* m_view = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_empty = nullptr;
  QPushButton* m_fit = nullptr;
  QPushButton* m_whole = nullptr;
  QStackedWidget* m_stack = nullptr;
};

}  // namespace oomscope::ui
