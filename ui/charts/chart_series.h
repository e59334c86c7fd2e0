#pragma once
// Plain series the analysis charts draw, built from a report on the worker thread (no Qt Charts here), so
// the chart adapters only copy points and the UI thread never walks a capture. Downsampling happens in core
// (analysis::downsample_min_max for the plan curve; the runtime analysis already downsamples the allocator
// series), keeping every peak exact.

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/analysis/report/report.h"
#include "core/capture/capture.h"

namespace oomscope::ui {

// Heap size of the analysed module's plan over program order, plus the role split at its peak.
struct PlanCurveSeries {
  QString module;                    // "jit_loss_fn(17)"
  std::vector<qint64> x;             // trace event index (program order)
  std::vector<qint64> bytes;         // heap + parameters/outputs/constants after that event (derived)
  std::vector<QString> instruction;  // the event's instruction, per point
  qint64 eventCount = 0;             // events in the replayed trace
  qint64 peakBytes = 0;
  qint64 peakIndex = -1;
  QString peakInstruction;
  qint64 indefiniteBytes = 0;              // the constant under the curve (parameters, outputs, constants)
  std::vector<analysis::RoleTotal> roles;  // at the peak, largest first
  std::optional<qint64> capacity;
  QString capacitySource;  // "capacity of GPU_0_bfc, read from the capture"
  bool capacityFromUser = false;
  QString emptyReason;  // why there is no curve ("" when there is one)

  bool empty() const { return x.empty(); }
};

struct TimelineAllocator {
  QString name;
  std::vector<qint64> timePs;
  std::vector<qint64> bytes;  // bytes in use (read from each event's stats)
  qint64 capacity = 0;
  qint64 peakBytes = 0;
  qint64 peakTimePs = 0;
  // Bytes reserved over time (the allocator's bytes_reserved stat, read; downsampled in core like bytes in
  // use), from the events that carry the stat; empty when none does. reservedEvents of events carry it.
  std::vector<qint64> reservedTimePs;
  std::vector<qint64> reservedBytes;
  qint64 events = 0;
  qint64 reservedEvents = 0;
  qint64 peakReservedBytes = 0;
  qint64 peakReservedTimePs = 0;
};

struct TimelineExecution {
  qint64 startPs = 0;
  qint64 endPs = 0;
  int number = 0;
  std::optional<bool> launched;
  qint64 inUseAtStart = 0;
  qint64 retryWaitPs = 0;
};

struct TimelineRetry {
  qint64 timePs = 0;
  qint64 durationPs = 0;
};

// Bytes in use over time per allocator, the analysed module's executions, AllocatorRetry waits.
struct TimelineSeries {
  std::vector<TimelineAllocator> allocators;
  QString module;  // the analysed module's label, "" when none
  std::vector<TimelineExecution> executions;
  std::vector<TimelineRetry> retries;
  std::optional<qint64> capacity;
  QString capacitySource;
  bool capacityFromUser = false;
  qint64 plannedPeakBytes = 0;  // the analysed module's planned peak, drawn inside each execution (0 = none)
  qint64 firstPs = 0;           // the range every series falls in
  qint64 lastPs = 0;
  QString emptyReason;

  bool empty() const { return allocators.empty(); }
};

// maxPoints bounds the curve drawn (min/max per bucket, the peak kept exactly).
PlanCurveSeries planCurveSeries(const analysis::HostReport& report, std::size_t maxPoints = 2000);
TimelineSeries timelineSeries(const analysis::HostReport& report, const capture::Capture& capture);

// Whether allocator a's reserved line is drawn: some event carries the stat and it is above 0 somewhere (a
// stat that reads 0 on every event is not drawn as a flat line, as if a reservation had been measured).
bool drawsReserved(const TimelineAllocator& a);
// What the chart says of bytes reserved, one sentence per kind of allocator: no event carries the stat, it
// reads 0 B on every event, or it is drawn from only some of the events. "" when every allocator's line is
// drawn from all its events.
QString reservedNote(const TimelineSeries& s);

}  // namespace oomscope::ui
