#pragma once
// Plan vs runtime on the Timeline chart: inside each execution of the analysed module, the planned heap
// curve placed on the wall clock (core analysis::map_plan_to_time), over the allocator's bytes in use; the
// planned peak and the runtime peak of each execution marked, the difference labelled where there is room,
// and the lifetime of a selected buffer shaded.
//
// Every point set is recomputed for the visible time window by core (min/max per pixel bucket), so a frame
// draws about two points per pixel at any zoom: refresh() runs on each change of the x range.

#include <QList>
#include <QObject>
#include <QRectF>
#include <QString>
#include <memory>
#include <optional>

#include "core/analysis/report/report.h"
#include "core/analysis/timeline/plan_timeline.h"
#include "core/capture/capture.h"

class QAreaSeries;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QScatterSeries;

namespace oomscope::ui {

class StepAreaItem;
class TimelineChart;

struct PlanRuntimeData {
  std::shared_ptr<const analysis::PlanTimeline> timeline;
  std::shared_ptr<const analysis::HostReport> report;  // its plan's curve
  std::shared_ptr<const capture::Capture> capture;     // memory events and the module's HloProto
  bool usable() const;
};

// What lies under a time on the planned curve.
struct PlanHit {
  std::size_t execution = 0;  // index into PlanTimeline::executions
  qint64 timePs = 0;
  qint64 position = 0;  // trace position
  QString instruction;
  qint64 plannedBytes = 0;
};

class PlanRuntimeOverlay : public QObject {
  Q_OBJECT
 public:
  explicit PlanRuntimeOverlay(TimelineChart* chart, QObject* parent = nullptr);
  ~PlanRuntimeOverlay() override;

  // Call after TimelineChart::setSeries (which removes every series): adds the overlay's series.
  void setData(PlanRuntimeData data);
  void clear();
  // Recomputes the visible points; plotWidth is the plot area's width in pixels.
  void refresh();
  // Shades the trace positions [from, to] (to < 0: to the end) inside every execution; label names it.
  void setHighlight(qint64 fromPosition, qint64 toPosition, const QString& label);
  void clearHighlight();

  std::optional<PlanHit> hitAt(double seconds) const;
  QString describe(double seconds) const;  // hover text ("" when nothing is there)
  // A short "+546 MiB: earlier outputs 552 MiB" line for one execution.
  QString differenceLabel(std::size_t execution) const;

  const PlanRuntimeData& data() const { return m_data; }
  QLineSeries* plannedSeries() const { return m_planned; }
  QAreaSeries* highlightSeries() const { return m_highlight; }
  // The planned and runtime peak markers of the visible window (analysis::peak_markers).
  QScatterSeries* plannedPeakSeries() const { return m_plannedPeaks; }
  QScatterSeries* runtimePeakSeries() const { return m_runtimePeaks; }
  // True when some marker stands for several executions (their highest; the legend says so).
  bool markersThinned() const { return m_markersThinned; }
  int plannedPointCount() const;
  int runtimePointCount() const;
  QList<QString> visibleLabels() const;
  // True when some visible execution is drawn stretched (no kernels named its instructions).
  bool stretchedVisible() const { return m_stretchedVisible; }

 signals:
  void instructionClicked(const QString& instruction, qint64 position);

 private:
  void placeLabels(qint64 t0, qint64 t1);
  void refreshHighlight(qint64 t0, qint64 t1);

  TimelineChart* m_chart;
  PlanRuntimeData m_data;
  QLineSeries* m_planned = nullptr;      // upper line of m_plannedArea
  QAreaSeries* m_plannedArea = nullptr;  // points for hover and the legend, painted by m_plannedItem
  StepAreaItem* m_plannedItem = nullptr;
  QScatterSeries* m_plannedPeaks = nullptr;
  QScatterSeries* m_runtimePeaks = nullptr;
  QAreaSeries* m_highlight = nullptr;
  QLineSeries* m_highlightUpper = nullptr;
  QLineSeries* m_runtime = nullptr;  // the module allocator's line of the chart (replaced per window)
  QList<QGraphicsSimpleTextItem*> m_labels;
  qint64 m_highlightFrom = -1;
  qint64 m_highlightTo = -1;
  QString m_highlightLabel;
  bool m_stretchedVisible = false;
  bool m_markersThinned = false;
};

}  // namespace oomscope::ui
