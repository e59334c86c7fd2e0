#include "ui/snapshot/whatif_oom_model.h"

#include <QCoreApplication>
#include <QStringList>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString bytes(std::uint64_t v) { return bytesText(static_cast<qint64>(v)); }
QString exact(std::uint64_t v) { return QCoreApplication::translate("WhatIfOomModel", "%1 bytes").arg(v); }

}  // namespace

void WhatIfOomModel::setNone(const QString& why) {
  beginResetModel();
  m_rows.clear();
  m_rows.push_back({tr("First failure"), why, {}});
  endResetModel();
}

void WhatIfOomModel::setOom(const std::optional<allocator::OomReport>& oom,
                            std::shared_ptr<const snapshot::Snapshot> snap, std::int64_t traceStartUs) {
  beginResetModel();
  m_rows.clear();
  if (oom) {
    const allocator::OomDetail& d = oom->detail;
    const auto add = [this](QString figure, QString value, QString tooltip = {}) {
      m_rows.push_back({std::move(figure), std::move(value), std::move(tooltip)});
    };
    add(tr("Trace entry"), QString::number(oom->trace_index),
        oom->recorded ? tr("the recording's own oom entry") : tr("an alloc that the recording served"));
    if (oom->time_us >= 0 && traceStartUs >= 0 && oom->time_us >= traceStartUs)
      add(tr("Time"),
          tr("%1 s after the trace's first entry").arg((oom->time_us - traceStartUs) / 1e6, 0, 'f', 6),
          tr("time_us %1 [read]").arg(oom->time_us));
    else if (oom->time_us >= 0)
      add(tr("Time"), tr("%1 \u00b5s").arg(oom->time_us));
    if (snap) {
      const auto& ids = snap->frames_of(oom->frames);
      QStringList lines;
      for (std::uint32_t id : ids) {
        const auto& f = snap->frames[id];
        lines << QStringLiteral("%1:%2 in %3").arg(safeText(f.filename)).arg(f.line).arg(safeText(f.name));
      }
      add(tr("Where (innermost frame)"), lines.isEmpty() ? tr("(no stack recorded)") : lines.front(),
          lines.join(QLatin1Char('\n')));
    }
    add(tr("Request"), bytes(d.requested), exact(d.requested));
    add(tr("Rounded block"), bytes(d.rounded), exact(d.rounded));
    add(tr("Segment it needed"), bytes(d.alloc_size),
        tr("what cudaMalloc (or the mapping of an expandable segment) would have had to add"));
    add(tr("Pool, stream"), tr("%1, stream %2").arg(d.small_pool ? tr("small") : tr("large")).arg(d.stream));
    add(tr("Largest free block in the pool"), bytes(d.largest_free_in_pool),
        tr("the largest cached free block of that pool and stream after the retry: %1")
            .arg(exact(d.largest_free_in_pool)));
    add(tr("Cached free bytes (before the retry)"), bytes(d.cached_free), exact(d.cached_free));
    add(tr("Released by the retry"), bytes(d.released_by_retry),
        tr("reserved bytes the free-all-cached-blocks retry returned to CUDA: %1")
            .arg(exact(d.released_by_retry)));
    add(tr("Reserved at the failure"), bytes(d.reserved_after), exact(d.reserved_after));
    add(tr("Allocated at the failure"), bytes(d.allocated_after), exact(d.allocated_after));
    if (d.capacity != allocator::kNoLimit) add(tr("Capacity"), bytes(d.capacity), exact(d.capacity));
    if (oom->recorded)
      add(tr("CUDA still had free (recorded)"), bytes(oom->device_free),
          tr("the oom entry's device_free [read]: %1").arg(exact(oom->device_free)));
  }
  endResetModel();
}

int WhatIfOomModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int WhatIfOomModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant WhatIfOomModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) return index.column() == Figure ? r.figure : r.value;
  if (role == Qt::ToolTipRole && !r.tooltip.isEmpty()) return r.tooltip;
  return {};
}

QVariant WhatIfOomModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == Figure ? tr("First failure [derived]") : section == Value ? tr("Value") : QVariant();
}

}  // namespace oomscope::ui
