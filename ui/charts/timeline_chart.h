#pragma once
// Adapter from TimelineSeries to a Qt chart: bytes in use per allocator over time (step lines, read) and
// bytes reserved where the capture carries the stat (dotted, read), the
// analysed module's executions as shaded bands (measured), executions that never launched a kernel and
// AllocatorRetry waits as red marks (measured), and the pool's capacity as a dashed line when in range.
// Time is in seconds of the capture's clock, as the CLI report prints it. Hover shows exact bytes.

#include <QObject>
#include <QString>
#include <vector>

#include "ui/charts/chart_axes.h"
#include "ui/charts/chart_series.h"

class QChart;
class QLineSeries;
class QValueAxis;

namespace oomscope::ui {

class ExecutionBandsItem;

class TimelineChart : public QObject {
  Q_OBJECT

 public:
  explicit TimelineChart(QObject* parent = nullptr);

  QChart* chart() const { return m_chart; }
  QValueAxis* xAxis() const { return m_x; }
  QValueAxis* yAxis() const { return m_y; }
  const ByteUnit& unit() const { return m_unit; }
  // The bytes-in-use line of allocator i of the series (null when it has no points).
  QLineSeries* allocatorLine(std::size_t i) const { return i < m_lines.size() ? m_lines[i] : nullptr; }
  // The bytes-reserved line of allocator i (dotted, its colour; null when not drawn: see drawsReserved).
  QLineSeries* reservedLine(std::size_t i) const {
    return i < m_reservedLines.size() ? m_reservedLines[i] : nullptr;
  }
  // The execution bands painted for the visible range (null when the series has no executions).
  const ExecutionBandsItem* executionBands() const { return m_bands; }
  // Full x range in seconds (a little wider than the data), for ZoomChartView::setXAxis.
  double fullMin() const { return m_fullMin; }
  double fullMax() const { return m_fullMax; }

  void setSeries(TimelineSeries series);
  void clear();
  // Redraws the execution bands and the allocator lines for the x axis' visible range only: bands merged
  // below a pixel (analysis::visible_spans), line points in the range plus one on each side. Called on
  // every change of the x range, so a frame costs what is visible, not the whole capture.
  void refreshWindow();

  bool capacityShown() const { return m_capacityShown; }
  QString capacityNote() const { return m_capacityNote; }
  // What the chart says of bytes reserved (reservedNote of the series).
  QString reservedNote() const { return m_reservedNote; }
  const TimelineSeries& series() const { return m_series; }
  // Hover texts.
  QString describeAllocator(std::size_t allocator, double seconds) const;
  QString describeReserved(std::size_t allocator, double seconds) const;
  QString describeExecution(double seconds) const;
  QString describeRetry(double seconds) const;

 private:
  QChart* m_chart;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
  std::vector<QLineSeries*> m_lines;          // per allocator of m_series (null: no points)
  std::vector<QLineSeries*> m_reservedLines;  // per allocator of m_series (null: not drawn)
  ExecutionBandsItem* m_bands = nullptr;      // the analysed module's executions (null: none)
  TimelineSeries m_series;
  ByteUnit m_unit;
  double m_fullMin = 0;
  double m_fullMax = 1;
  bool m_capacityShown = false;
  QString m_capacityNote;
  QString m_reservedNote;
};

// "9.719534 s" (microseconds), and "2.57 ms" style durations.
QString secondsText(qint64 ps);
QString durationText(qint64 ps);

}  // namespace oomscope::ui
