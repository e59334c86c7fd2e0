#include "ui/models/capture_rows.h"

#include <QFileInfo>
#include <QLocale>
#include <algorithm>
#include <array>

#include "core/util/bytes.h"
#include "core/util/safe_text.h"

namespace oomscope::ui {

namespace {

// Names from the capture shown in cells, titles and tooltips: control characters as visible escapes,
// invalid UTF-8 bytes likewise (a crafted capture cannot put ESC or BEL into the window).
QString qs(const std::string& s) { return QString::fromStdString(single_line_safe(s)); }
QString bytes(qint64 n) { return QString::fromStdString(format_bytes(std::int64_t(n))); }

}  // namespace

std::vector<ModuleRow> moduleRows(const capture::Capture& capture) {
  std::vector<ModuleRow> rows;
  rows.reserve(capture.modules().size());
  for (const auto& m : capture.modules()) {
    ModuleRow row;
    row.name = qs(m.name);
    row.programId = m.program_id;
    row.hasPlan = m.has_buffer_assignment;
    row.parameters = m.totals.parameters_bytes;
    row.donated = m.totals.donated_bytes;
    row.outputs = m.totals.outputs_bytes;
    row.temp = m.totals.temp_bytes;
    row.totalAllocation = m.totals.total_allocation_bytes;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<AllocatorRow> allocatorRows(const capture::Capture& capture) {
  std::vector<AllocatorRow> rows;
  rows.reserve(capture.allocators().size());
  for (const auto& a : capture.allocators()) {
    rows.push_back(AllocatorRow{qs(a.name), a.allocations, a.deallocations, a.max_bytes_in_use,
                                a.peak_bytes_in_use, a.capacity_bytes});
  }
  return rows;
}

std::vector<AllocatorRow> allocatorRows(std::span<const analysis::AllocatorRuntime> allocators) {
  std::vector<AllocatorRow> rows;
  for (const auto& a : allocators)
    if (a.allocations + a.deallocations > 0)
      rows.push_back(AllocatorRow{qs(a.name), a.allocations, a.deallocations, a.peak_bytes_in_use,
                                  a.lifetime_peak_bytes, a.capacity_bytes});
  return rows;
}

std::vector<PlaneRow> planeRows(const capture::Capture& capture) {
  std::vector<PlaneRow> rows;
  rows.reserve(capture.planes().size());
  for (const auto& p : capture.planes()) {
    rows.push_back(PlaneRow{qs(p.name), qint64(p.lines.size()), qint64(p.event_count())});
  }
  return rows;
}

CaptureSummary summarize(const capture::Capture& capture) {
  CaptureSummary s;
  s.path = qs(capture.path());
  s.fileSize = capture.file_size();
  for (const auto& h : capture.hostnames()) s.hosts << qs(h);
  s.planeCount = qint64(capture.planes().size());
  s.eventCount = qint64(capture.event_count());
  s.moduleCount = qint64(capture.modules().size());
  s.allocatorCount = qint64(capture.allocators().size());
  for (const auto& a : capture.allocators()) {
    s.allocations += a.allocations;
    s.deallocations += a.deallocations;
  }
  s.retryCount = qint64(capture.allocator_retries().size());
  for (const auto& r : capture.allocator_retries()) s.retryTotalPs += r.duration_ps;

  // The execution markers overlap (one XLA module span sits inside one ExecuteHelper inside one
  // PjitFunction), so count the most specific kind present rather than their sum.
  using K = capture::ExecutionKind;
  struct Source {
    K kind;
    const char* label;
  };
  constexpr std::array<Source, 4> sources{{{K::XlaModule, "XLA module host spans"},
                                           {K::DeviceModule, "XLA Modules device line"},
                                           {K::ExecuteHelper, "ExecuteHelper host spans"},
                                           {K::PjitFunction, "PjitFunction host spans"}}};
  for (const auto& source : sources) {
    const auto n = std::count_if(capture.executions().begin(), capture.executions().end(),
                                 [&](const capture::ExecutionSpan& e) { return e.kind == source.kind; });
    if (n > 0) {
      s.executionCount = qint64(n);
      s.executionSource = QString::fromLatin1(source.label);
      break;
    }
  }

  const auto modules = moduleRows(capture);
  for (const auto& m : modules) {
    if (m.hasPlan && (!s.largestModule || m.totalAllocation > s.largestModule->totalAllocation))
      s.largestModule = m;
  }
  const auto allocators = allocatorRows(capture);
  for (const auto& a : allocators) {
    if (!s.busiestAllocator || a.maxInUse > s.busiestAllocator->maxInUse) s.busiestAllocator = a;
  }

  for (const auto& e : capture.errors()) s.problems << QStringLiteral("Profiler error: ") + qs(e);
  for (const auto& w : capture.warnings()) s.problems << QStringLiteral("Profiler warning: ") + qs(w);
  for (const auto& p : capture.module_problems()) s.problems << qs(p);
  return s;
}

QString describeSummary(const CaptureSummary& s) {
  QStringList sentences;
  if (const auto& m = s.largestModule) {
    QString sentence =
        QStringLiteral("The largest module is %1 (program %2): its buffer assignment totals %3")
            .arg(m->name)
            .arg(m->programId)
            .arg(bytes(m->totalAllocation));
    QStringList parts;
    if (m->temp > 0) parts << QStringLiteral("%1 temporaries").arg(bytes(m->temp));
    if (m->parameters > 0) parts << QStringLiteral("%1 parameters").arg(bytes(m->parameters));
    if (m->outputs > 0) parts << QStringLiteral("%1 outputs").arg(bytes(m->outputs));
    if (!parts.isEmpty()) sentence += QStringLiteral(", of which ") + parts.join(QStringLiteral(", "));
    sentences << sentence + QLatin1Char('.');
  } else if (s.moduleCount > 0) {
    sentences << QStringLiteral(
                     "None of the %1 modules carries a buffer assignment, so their sizes are unknown.")
                     .arg(s.moduleCount);
  } else {
    sentences << QStringLiteral("The capture holds no XLA modules (no HloProto in /host:metadata).");
  }

  if (const auto& a = s.busiestAllocator) {
    QString sentence = QStringLiteral("Allocator %1 had at most %2 in use").arg(a->name, bytes(a->maxInUse));
    if (a->capacity > 0) {
      const double share = 100.0 * double(a->maxInUse) / double(a->capacity);
      // One decimal below 10 %, so a small share does not read as "0 %".
      sentence += QStringLiteral(" of %1 (%2 %)")
                      .arg(bytes(a->capacity), QLocale().toString(share, 'f', share < 10 ? 1 : 0));
    }
    if (a->lifetimePeak > a->maxInUse) {
      sentence +=
          QStringLiteral("; its lifetime peak of %1 predates the capture").arg(bytes(a->lifetimePeak));
    }
    if (s.retryCount > 0) {
      sentence += QStringLiteral(", and allocations waited for memory %1 times (AllocatorRetry)")
                      .arg(QLocale().toString(s.retryCount));
    }
    sentences << sentence + QLatin1Char('.');
  } else {
    sentences << QStringLiteral(
        "No allocator events were recorded; they need host_tracer_level 2 or higher when profiling.");
  }
  return sentences.join(QLatin1Char(' '));
}

}  // namespace oomscope::ui
