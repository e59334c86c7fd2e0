// The Diagnosis page's row of key figures (planned peak, the other phase's peak, temp block, parameters,
// highest in use, executions, AllocatorRetry waits), each a tile with its measured/read/derived chip. With a
// time selection the runtime tiles say they count inside it.
#include "ui/analysis/diagnosis_key_figures.h"

#include <QGridLayout>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/analysis/analysis_widgets.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString secondsText(std::int64_t ps) { return QStringLiteral("%1 s").arg(double(ps) / 1e12, 0, 'g', 3); }

}  // namespace

DiagnosisKeyFigures::DiagnosisKeyFigures(const analysis::HostReport& r, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("diagnosisKeyFigures"));
  const bool windowed = r.runtime.time_window.has_value();  // figures of a selected time range
  using P = analysis::Provenance;
  auto* box = this;
  auto* grid = new QGridLayout(box);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(8);
  int n = 0;
  const auto add = [&](const QString& value, const QString& caption, P p, const QString& tip) {
    grid->addWidget(makeFigureTile(value, caption, p, tip, box), 0, n++);
  };
  if (r.plan && r.plan->status != analysis::PlanStatus::NoBufferAssignment) {
    const auto& p = *r.plan;
    const bool heap = p.status == analysis::PlanStatus::Ok;
    const qint64 needs = heap ? p.peak_bytes : p.total_allocation_bytes;
    const QString phase =
        heap && p.peak_event_index >= 0
            ? (p.peak_phase == analysis::Phase::NoBackward
                   ? tr(", no backward")
                   : tr(", in the %1").arg(QString::fromLatin1(analysis::to_string(p.peak_phase))))
            : QString();
    add(bytesText(needs),
        heap ? tr("planned peak of %1%2").arg(safeText(p.module_name), phase)
             : tr("allocation total (no heap trace)"),
        heap ? P::Derived : P::Read, bytesWithExact(needs));
    if (heap) {
      if (const auto other = p.other_phase_peak())
        add(bytesText(other->bytes),
            tr("%1 peak, at %2")
                .arg(QString::fromLatin1(analysis::to_string(other->phase)), safeText(other->instruction)),
            P::Derived,
            tr("A fix of the %1 alone cannot bring the need below this peak of the %2 (temp heap %3)")
                .arg(QString::fromLatin1(analysis::to_string(p.peak_phase)),
                     QString::fromLatin1(analysis::to_string(other->phase)),
                     bytesWithExact(other->heap_bytes)));
    }
    add(bytesText(p.temp_bytes), tr("temp block"), P::Read, bytesWithExact(p.temp_bytes));
    add(bytesText(p.parameters_bytes), tr("parameters, %1 donated").arg(bytesText(p.donation.donated_bytes)),
        P::Read, bytesWithExact(p.parameters_bytes));
  }
  if (!r.runtime.allocators.empty()) {
    // The analysed module's allocator; without one, the busiest allocator.
    const analysis::AllocatorRuntime* a = &*std::max_element(
        r.runtime.allocators.begin(), r.runtime.allocators.end(),
        [](const auto& x, const auto& y) { return x.peak_bytes_in_use < y.peak_bytes_in_use; });
    if (r.runtime.module && r.runtime.module->allocator &&
        *r.runtime.module->allocator < r.runtime.allocators.size())
      a = &r.runtime.allocators[*r.runtime.module->allocator];
    add(bytesText(a->peak_bytes_in_use),
        (windowed ? tr("highest in use on %1 in the selection") : tr("highest in use on %1"))
            .arg(safeText(a->name)),
        P::Read, bytesWithExact(a->peak_bytes_in_use));
  }
  if (r.runtime.module) {
    const auto& m = *r.runtime.module;
    add(QString::number(m.executions.size()),
        m.never_launched ? tr("executions, %1 never launched a kernel").arg(m.never_launched)
        : windowed       ? tr("executions in the selection")
                         : tr("executions in the capture"),
        P::Measured, tr("Host executions of %1 matched in the capture").arg(safeText(m.module)));
  }
  if (!r.plan_only)
    add(QString::number(r.runtime.retries.count),
        r.runtime.retries.count
            ? tr("AllocatorRetry waits, longest %1").arg(secondsText(r.runtime.retries.longest_ps))
            : (windowed ? tr("AllocatorRetry waits in the selection") : tr("AllocatorRetry waits")),
        P::Measured,
        tr("Waits of the allocator for memory to be freed: the sign of an OOM inside the capture"));
  for (int c = 0; c < n; ++c) grid->setColumnStretch(c, 1);
  m_count = n;
}

}  // namespace oomscope::ui
