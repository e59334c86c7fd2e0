#include "ui/snapshot/whatif_scenario_model.h"

#include <QBrush>
#include <QColor>

#include "ui/models/report_format.h"

namespace oomscope::ui {

namespace {

// As the CLI's "saved" column: the recorded run's peak reserved minus the scenario's (negative: more).
QString savedBytes(std::int64_t v) {
  return (v < 0 ? QStringLiteral("-") : QString()) + bytesText(v < 0 ? -v : v);
}

}  // namespace

void WhatIfScenarioModel::setResult(std::shared_ptr<const allocator::WhatIfResult> result) {
  beginResetModel();
  m_result = std::move(result);
  endResetModel();
}

const allocator::Scenario* WhatIfScenarioModel::scenario(int row) const {
  if (!m_result || row < 0 || row >= rowCount()) return nullptr;
  return row == 0 ? &m_result->recorded : &m_result->scenarios[static_cast<std::size_t>(row - 1)];
}

int WhatIfScenarioModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_result) return 0;
  return 1 + static_cast<int>(m_result->scenarios.size());
}

int WhatIfScenarioModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant WhatIfScenarioModel::data(const QModelIndex& index, int role) const {
  const allocator::Scenario* s = index.isValid() ? scenario(index.row()) : nullptr;
  if (!s || index.column() >= ColumnCount) return {};
  const allocator::ReplayResult& r = s->result;
  const bool best = m_result->best && index.row() == static_cast<int>(*m_result->best) + 1;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Name:
        return QString::fromStdString(s->name) + (best ? tr(" (best)") : QString());
      case Capacity:
        return r.capacity == allocator::kNoLimit ? tr("unlimited")
                                                 : bytesText(static_cast<qint64>(r.capacity));
      case PeakReserved:
        return bytesText(static_cast<qint64>(r.peak_reserved));
      case PeakAllocated:
        return bytesText(static_cast<qint64>(r.peak_allocated));
      case Saved:
        if (index.row() == 0) return QStringLiteral("\u2014");
        return s->saved_vs_recorded ? savedBytes(*s->saved_vs_recorded) : tr("n/a (an OOM)");
      case FirstOom:
        if (!r.first_oom) return tr("none");
        return tr("entry %1: %2")
            .arg(r.first_oom->trace_index)
            .arg(bytesText(static_cast<qint64>(r.first_oom->detail.requested)));
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {  // sort keys
    switch (index.column()) {
      case Capacity:
        return QVariant::fromValue<qulonglong>(r.capacity);
      case PeakReserved:
        return QVariant::fromValue<qulonglong>(r.peak_reserved);
      case PeakAllocated:
        return QVariant::fromValue<qulonglong>(r.peak_allocated);
      case Saved:
        return QVariant::fromValue<qlonglong>(s->saved_vs_recorded.value_or(0));
      case FirstOom:
        return QVariant::fromValue<qlonglong>(r.first_oom ? r.first_oom->trace_index : -1);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ToolTipRole) {
    if (index.row() == 0) {
      const auto& v = r.validation;
      if (!v || !v->checked) return tr("The trace held nothing to check the model against: not validated.");
      if (v->matched)
        return tr("The replay reproduced the recording: %1 of %2 segment events, %3 of %4 block addresses")
            .arg(v->segment_events_matched)
            .arg(v->segment_events_recorded)
            .arg(v->allocs_at_recorded_address)
            .arg(v->allocs);
      return tr("The replay did NOT reproduce the recording%1; the other rows are not predictions")
          .arg(v->first_divergence ? QStringLiteral(": ") + QString::fromStdString(v->first_divergence->what)
                                   : QString());
    }
    return tr("Peak reserved %1 bytes, peak allocated %2 bytes [derived by replay]")
        .arg(r.peak_reserved)
        .arg(r.peak_allocated);
  }
  if (role == Qt::ForegroundRole && index.column() == FirstOom && r.first_oom)
    return QBrush(QColor(0xc8, 0x1e, 0x1e));
  if (role == Qt::TextAlignmentRole && index.column() != Name) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant WhatIfScenarioModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Scenario");
    case Capacity:
      return tr("Capacity");
    case PeakReserved:
      return tr("Peak reserved");
    case PeakAllocated:
      return tr("Peak allocated");
    case Saved:
      return tr("Reserved saved");
    case FirstOom:
      return tr("First OOM");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
