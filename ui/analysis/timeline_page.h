#pragma once
// The Timeline page: bytes in use per allocator over the capture's time, the analysed module's executions
// as bands, AllocatorRetry waits and never-launched executions as red marks, the pool line when in range.
// Wheel zooms and drag pans the time axis; "Fit executions" zooms onto the module's executions.
// Inside each execution the plan is drawn on the wall clock over the runtime bytes in use
// (PlanRuntimeOverlay); a click on it names the instruction running, shift+drag selects a time range.

#include <QWidget>
#include <memory>

class QLabel;
class QPushButton;
class QStackedWidget;

namespace oomscope::ui {
class RangeBanner;

struct AnalysisResult;
class PlanRuntimeOverlay;
class TimelineChart;
class ZoomChartView;

class TimelinePage : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePage(QWidget* parent = nullptr);

  void setResult(const std::shared_ptr<const AnalysisResult>& result);
  void clear();
  // Zooms the time axis onto the analysed module's executions (with a margin).
  void fitExecutions();

  TimelineChart* chart() const { return m_chart; }
  PlanRuntimeOverlay* overlay() const { return m_overlay; }
  // Shades the lifetime of trace positions [from, to] (to < 0: to the end) in each execution; from < 0
  // clears.
  void highlightPositions(qint64 from, qint64 to, const QString& label);
  // Clicking the chart at x seconds: the instruction running there, if any, is announced.
  void clickAt(double seconds);

 signals:
  void instructionClicked(const QString& instruction, qint64 position);
  void timeRangeSelected(qint64 fromPs, qint64 toPs);

 public:
  ZoomChartView* view() const { return m_view; }
  QString summaryText() const;
  RangeBanner* rangeBanner() const { return m_banner; }
  bool showsChart() const;

 private:
  TimelineChart* m_chart = nullptr;
  PlanRuntimeOverlay* m_overlay = nullptr;
  ZoomChartView* m_view = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_empty = nullptr;
  RangeBanner* m_banner = nullptr;
  QPushButton* m_fit = nullptr;
  QPushButton* m_whole = nullptr;
  QStackedWidget* m_stack = nullptr;
};

}  // namespace oomscope::ui
