#include "ui/charts/chart_series.h"

#include <algorithm>

#include "core/analysis/plan/plan.h"
#include "core/analysis/plan/plan_curve.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

PlanCurveSeries planCurveSeries(const analysis::HostReport& report, std::size_t maxPoints) {
  PlanCurveSeries s;
  s.capacity = report.capacity_bytes;
  s.capacitySource = poolSource(report);
  s.capacityFromUser = report.capacity_source == analysis::CapacitySource::Given;
  if (!report.plan) {
    s.emptyReason = report.modules.empty() ? QStringLiteral("The capture has no XLA module plans.")
                                           : QStringLiteral("No module is analysed.");
    return s;
  }
  const analysis::PlanAnalysis& p = *report.plan;
  s.module = QStringLiteral("%1(%2)").arg(safeText(p.module_name)).arg(p.program_id);
  if (p.status == analysis::PlanStatus::NoBufferAssignment) {
    s.emptyReason =
        QStringLiteral("%1 has no buffer assignment in the capture: there is no plan to draw.").arg(s.module);
    return s;
  }
  if (p.status == analysis::PlanStatus::NoHeapTrace || p.curve.size() == 0) {
    s.emptyReason =
        QStringLiteral("%1 has no usable heap-simulator trace: only its allocation total (%2) is known.")
            .arg(s.module, bytesText(p.total_allocation_bytes));
    return s;
  }
  s.peakBytes = p.peak_bytes;
  s.peakIndex = p.peak_event_index;
  s.peakInstruction = safeText(p.peak_instruction);
  s.indefiniteBytes = p.curve.indefinite_bytes;
  s.eventCount = qint64(p.curve.size());
  s.roles = p.role_totals;
  std::stable_sort(s.roles.begin(), s.roles.end(),
                   [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  std::optional<std::size_t> keep;
  if (p.peak_event_index >= 0 && std::size_t(p.peak_event_index) < p.curve.size())
    keep = std::size_t(p.peak_event_index);
  const auto points = analysis::downsample_min_max(p.curve.heap_bytes, maxPoints, keep);
  s.x.reserve(points.size());
  s.bytes.reserve(points.size());
  s.instruction.reserve(points.size());
  for (const analysis::CurvePoint& pt : points) {
    s.x.push_back(pt.index);
    s.bytes.push_back(pt.value + p.curve.indefinite_bytes);
    s.instruction.push_back(safeText(p.curve.instruction_at(std::size_t(pt.index))));
  }
  return s;
}

TimelineSeries timelineSeries(const analysis::HostReport& report, const capture::Capture& capture) {
  TimelineSeries s;
  s.capacity = report.capacity_bytes;
  s.capacitySource = poolSource(report);
  s.capacityFromUser = report.capacity_source == analysis::CapacitySource::Given;
  bool first = true;
  const auto widen = [&](qint64 t) {
    if (first) s.firstPs = s.lastPs = t;
    s.firstPs = std::min(s.firstPs, t);
    s.lastPs = std::max(s.lastPs, t);
    first = false;
  };
  for (const analysis::AllocatorRuntime& a : report.runtime.allocators) {
    if (a.series.empty()) continue;
    TimelineAllocator out;
    out.name = safeText(a.name);
    out.capacity = a.capacity_bytes;
    out.peakBytes = a.peak_bytes_in_use;
    out.peakTimePs = a.peak_time_ps;
    for (const analysis::RuntimeSeriesPoint& p : a.series) {
      out.timePs.push_back(p.time_ps);
      out.bytes.push_back(p.bytes_in_use);
      widen(p.time_ps);
    }
    out.events = a.allocations + a.deallocations;
    out.reservedEvents = a.reserved_events;
    out.peakReservedBytes = a.reserved_events > 0 ? a.peak_bytes_reserved : 0;
    out.peakReservedTimePs = a.peak_reserved_time_ps;
    for (const analysis::ReservedSeriesPoint& p : a.reserved_series) {
      out.reservedTimePs.push_back(p.time_ps);
      out.reservedBytes.push_back(p.bytes_reserved);
      widen(p.time_ps);
    }
    s.allocators.push_back(std::move(out));
  }
  if (s.allocators.empty()) {
    s.emptyReason = report.plan_only
                        ? QStringLiteral("A bare HloProto has no allocator events: there is no timeline.")
                        : QStringLiteral("The capture has no allocator events: there is no timeline.");
    return s;
  }
  if (const auto& m = report.runtime.module) {
    s.module = safeText(m->module);
    if (m->program_id) s.module += QStringLiteral("(%1)").arg(*m->program_id);
    if (report.plan && !m->executions.empty()) s.plannedPeakBytes = report.plan->peak_bytes;
    for (const analysis::RuntimeExecution& e : m->executions) {
      s.executions.push_back({e.start_ps, std::max(e.end_ps, e.start_ps), e.number, e.launched,
                              e.bytes_in_use_at_start, e.retry_wait_ps});
      widen(e.start_ps);
      widen(e.end_ps);
    }
  }
  for (const capture::RetryEvent& r : capture.allocator_retries()) {
    s.retries.push_back({r.time_ps, r.duration_ps});
    widen(r.time_ps);
  }
  return s;
}

bool drawsReserved(const TimelineAllocator& a) { return a.reservedEvents > 0 && a.peakReservedBytes > 0; }

namespace {

// "GPU_0_bfc", "GPU_0_bfc and GPU_1_bfc", "GPU_0_bfc, GPU_1_bfc and GPU_2_bfc", "8 allocators (GPU_0_bfc ..
// GPU_7_bfc)"; `all` says "all N allocators" when the group is every allocator of the capture.
QString allocatorGroup(const QStringList& names, bool all) {
  if (names.size() > 3)
    return QStringLiteral("%1 %2 allocators (%3 .. %4)")
        .arg(all ? QStringLiteral("all") : QString())
        .arg(names.size())
        .arg(names.front(), names.back())
        .trimmed();
  if (names.size() == 1) return names.front();
  return QStringList(names.begin(), names.end() - 1).join(QStringLiteral(", ")) + QStringLiteral(" and ") +
         names.back();
}

}  // namespace

QString reservedNote(const TimelineSeries& s) {
  QStringList none, zero, some;
  for (const TimelineAllocator& a : s.allocators) {
    if (a.reservedEvents == 0)
      none << a.name;
    else if (a.peakReservedBytes <= 0)
      zero << a.name;
    else if (a.reservedEvents < a.events)
      some << QStringLiteral("%1 (%2 of its %3 events)").arg(a.name).arg(a.reservedEvents).arg(a.events);
  }
  const auto n = qsizetype(s.allocators.size());
  QStringList out;
  if (!none.isEmpty())
    out << QStringLiteral(
               "Bytes reserved: the capture carries no reserved figure for %1 (no event has the "
               "bytes_reserved stat), so no reserved line is drawn.")
               .arg(allocatorGroup(none, none.size() == n && n > 1));
  if (!zero.isEmpty())
    out << QStringLiteral(
               "Bytes reserved: the bytes_reserved stat reads 0 B on every event of %1, so no "
               "reserved line is drawn (the capture shows no reservation beside bytes in use).")
               .arg(allocatorGroup(zero, zero.size() == n && n > 1));
  if (!some.isEmpty())
    out << QStringLiteral("The reserved line of %1 is drawn from the events that carry the stat only.")
               .arg(some.join(QStringLiteral(", ")));
  return out.join(QLatin1Char(' '));
}

}  // namespace oomscope::ui
