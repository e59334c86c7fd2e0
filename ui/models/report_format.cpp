#include "ui/models/report_format.h"

#include <QLocale>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

using analysis::BufferRole;
using analysis::HostReport;
using analysis::Provenance;

QString bytesText(qint64 bytes) { return QString::fromStdString(format_bytes(std::int64_t(bytes))); }

QString exactBytesText(qint64 bytes) {
  return QStringLiteral("%1 bytes").arg(QString::fromStdString(format_bytes_exact(std::int64_t(bytes))));
}

QString bytesWithExact(qint64 bytes) {
  return QStringLiteral("%1 (%2)").arg(bytesText(bytes), exactBytesText(bytes));
}

QString provenanceText(Provenance provenance) { return QString::fromLatin1(analysis::to_string(provenance)); }

QColor provenanceColor(Provenance provenance) {
  switch (provenance) {
    case Provenance::Measured:
      return QColor(0x1d, 0x4e, 0xd8);  // blue: counted or timed
    case Provenance::Read:
      return QColor(0x04, 0x78, 0x57);  // green: straight from the file
    case Provenance::Derived:
      return QColor(0x6d, 0x28, 0xd9);  // violet: computed
  }
  return QColor(Qt::darkGray);
}

QString provenanceMeaning(Provenance provenance) {
  switch (provenance) {
    case Provenance::Measured:
      return QStringLiteral("Measured: counted or timed from the runtime events of the capture.");
    case Provenance::Read:
      return QStringLiteral("Read: copied from the capture (a stat or a field of the XLA plan).");
    case Provenance::Derived:
      return QStringLiteral(
          "Derived: computed from read or measured figures (plan replay, ratios, estimates).");
  }
  return {};
}

QString provenanceChipHtml(Provenance provenance) {
  return QStringLiteral(
             "<span style=\"background-color:%1; color:white; font-size:small;\">&nbsp;%2&nbsp;</span>")
      .arg(provenanceColor(provenance).name(), provenanceText(provenance));
}

QString roleText(BufferRole role) { return QString::fromLatin1(analysis::to_string(role)); }

QString roleMeaning(BufferRole role) {
  switch (role) {
    case BufferRole::ForwardKept:
      return QStringLiteral("activations kept for the backward pass");
    case BufferRole::ForwardTransient:
      return QStringLiteral(
          "forward temporaries freed before the backward starts (remat cannot remove them)");
    case BufferRole::Backward:
      return QStringLiteral("backward-pass buffers (gradients and their temporaries)");
    case BufferRole::Workspace:
      return QStringLiteral("GEMM/convolution library workspace");
    case BufferRole::Other:
      return QStringLiteral("temporaries outside jvp/transpose (the op that made each is in its name stack)");
    case BufferRole::Parameter:
      return QStringLiteral("the module's parameters");
    case BufferRole::Output:
      return QStringLiteral("the module's outputs");
    case BufferRole::Constant:
      return QStringLiteral("constants");
    case BufferRole::ThreadLocal:
      return QStringLiteral("thread-local buffers");
  }
  return {};
}

QColor roleColor(BufferRole role) {
  // Heap roles warm to cool by how actionable they are; indefinite roles in muted tones.
  switch (role) {
    case BufferRole::ForwardKept:
      return QColor(0xe0, 0x6c, 0x1f);
    case BufferRole::ForwardTransient:
      return QColor(0xd9, 0xa4, 0x41);
    case BufferRole::Backward:
      return QColor(0x2b, 0x7b, 0xb9);
    case BufferRole::Workspace:
      return QColor(0x8e, 0x5e, 0xa2);
    case BufferRole::Other:
      return QColor(0x9a, 0x9a, 0x9a);
    case BufferRole::Parameter:
      return QColor(0x3a, 0x9e, 0x6e);
    case BufferRole::Output:
      return QColor(0x8c, 0xc0, 0x84);
    case BufferRole::Constant:
      return QColor(0xc9, 0xb0, 0x5a);
    case BufferRole::ThreadLocal:
      return QColor(0x6e, 0x6e, 0x8c);
  }
  return QColor(Qt::gray);
}

QString moduleLabel(const analysis::ModuleRow& row) {
  return QStringLiteral("%1(%2)").arg(safeText(row.name)).arg(row.program_id);
}

QString choiceText(analysis::ModuleChoice choice) { return QString::fromLatin1(analysis::to_string(choice)); }

QString percentText(double percent) {
  if (percent > 0 && percent < 0.05) return QStringLiteral("< 0.1 %");
  if (percent < 10) return QStringLiteral("%1 %").arg(percent, 0, 'f', 1);
  return QStringLiteral("%1 %").arg(std::llround(percent));
}

QString poolSource(const HostReport& report) {
  if (!report.capacity_bytes) return QStringLiteral("pool size unknown (no allocator events)");
  if (report.capacity_source == analysis::CapacitySource::Given)
    return QStringLiteral("the pool size you entered");
  return QStringLiteral("capacity of %1, read from the capture").arg(safeText(report.capacity_allocator));
}

namespace {

// " The runtime peak is 432 MiB at 0.026373 s, inside jit_dot(49) execution 3: more than the 300 MiB pool."
// What the allocator held is the program's memory at run time: for an eager program the plan of one op is
// not.
QString runtimePeakSentence(const HostReport& report) {
  if (!report.runtime_peak) return {};
  const analysis::RuntimePeak& p = *report.runtime_peak;
  QString s = QStringLiteral(" The runtime peak is %1 at %2 s")
                  .arg(bytesText(p.peak_bytes))
                  .arg(double(p.time_ps) / 1e12, 0, 'f', 6);
  if (p.execution)
    s +=
        QStringLiteral(", inside %1 execution %2").arg(safeText(p.execution->label)).arg(p.execution->number);
  else
    s += QStringLiteral(", outside every execution");
  if (report.capacity_bytes && *report.capacity_bytes > 0) {
    const qint64 cap = *report.capacity_bytes;
    if (p.peak_bytes > cap)
      s += QStringLiteral(": more than the %1 pool (%2 over)")
               .arg(bytesText(cap), bytesText(p.peak_bytes - cap));
    else
      s += QStringLiteral(" (%1 of the pool)").arg(percentText(100.0 * double(p.peak_bytes) / double(cap)));
  }
  return s + QLatin1Char('.');
}

// "An op-by-op program (16 modules ran, none a training step): " before the plan of one of its ops.
QString eagerPrefix(const HostReport& report) {
  if (!report.eager) return {};
  return QStringLiteral(
             "An op-by-op program (%1 modules ran, none a training step), so its memory is what its "
             "ops leave live, not one plan; of its ops, ")
      .arg(report.program.modules_executed);
}

}  // namespace

QString reportVerdict(const HostReport& report) {
  if (report.modules.empty())
    return QStringLiteral("This capture has no XLA module plans; only the runtime events can be analysed.");
  if (!report.plan || !report.module_index)
    return QStringLiteral("No module could be analysed in this capture.");
  const analysis::PlanAnalysis& plan = *report.plan;
  const QString name = safeText(plan.module_name);
  if (plan.status == analysis::PlanStatus::NoBufferAssignment)
    return QStringLiteral(
               "The plan of %1 has no buffer assignment in the capture, so its memory needs are unknown.")
        .arg(name);
  const bool heap = plan.status == analysis::PlanStatus::Ok;
  const qint64 needs = heap ? plan.peak_bytes : plan.total_allocation_bytes;
  QString sentence;
  if (report.capacity_bytes && *report.capacity_bytes > 0) {
    const qint64 cap = *report.capacity_bytes;
    const double pct = 100.0 * double(needs) / double(cap);
    if (needs <= cap)
      sentence = QStringLiteral("The plan of %1 needs %2 in a %3 pool (%4)")
                     .arg(name, bytesText(needs), bytesText(cap), percentText(pct));
    else
      sentence = QStringLiteral("The plan of %1 needs %2 but the pool holds %3: it does not fit (%4 over)")
                     .arg(name, bytesText(needs), bytesText(cap), bytesText(needs - cap));
  } else {
    sentence =
        QStringLiteral("The plan of %1 needs %2 (the pool size is unknown)").arg(name, bytesText(needs));
  }
  if (heap && !plan.role_totals.empty()) {
    const auto largest = std::max_element(plan.role_totals.begin(), plan.role_totals.end(),
                                          [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    sentence += QStringLiteral("; %1 of its peak is %2")
                    .arg(percentText(largest->percent_of_peak), roleMeaning(largest->role));
  } else if (!heap) {
    sentence += QStringLiteral("; without a heap trace this is the allocation total, not the peak");
  }
  // A program-order selection: the figures are of the highest point inside it, not of the plan's peak.
  if (heap && plan.peak_range) {
    sentence[0] = sentence[0].toLower();
    sentence = QStringLiteral("At its highest point in program positions %1 .. %2, ")
                   .arg(plan.peak_range->first)
                   .arg(plan.peak_range->second) +
               sentence;
  }
  if (report.runtime.module && report.runtime.module->growth_consistent &&
      report.runtime.module->growth_per_execution && *report.runtime.module->growth_per_execution > 0)
    sentence += QStringLiteral("; bytes in use grow by %1 per execution")
                    .arg(bytesText(*report.runtime.module->growth_per_execution));
  if (report.eager) {
    sentence[0] = sentence[0].toLower();
    sentence = eagerPrefix(report) + sentence;
  }
  return sentence + QLatin1Char('.') + runtimePeakSentence(report);
}

std::optional<qint64> parseByteSize(const QString& text, QString* error) {
  const ParsedBytes parsed = parse_byte_size(text.trimmed().toStdString());
  QString why;
  if (!parsed)
    why = QString::fromStdString(parsed.error);
  else if (parsed.bytes < 1)
    why = QStringLiteral("the pool must hold at least one byte");
  if (why.isEmpty()) return qint64(parsed.bytes);
  if (error) *error = why;
  return std::nullopt;
}

}  // namespace oomscope::ui
