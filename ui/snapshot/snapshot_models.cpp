#include "ui/snapshot/snapshot_models.h"

#include <QColor>
#include <QLocale>

#include "core/snapshot/categories.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString hex(std::uint64_t v) { return QStringLiteral("0x%1").arg(v, 0, 16); }
QString signedBytes(qint64 v) {
  return (v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("-") : QString()) + bytesText(v < 0 ? -v : v);
}

}  // namespace

void TopAllocationsModel::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  beginResetModel();
  m_doc = std::move(doc);
  endResetModel();
}

int TopAllocationsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_doc) return 0;
  const auto* d = m_doc->deviceAnalysis();
  return d ? static_cast<int>(d->at_peak.size()) : 0;
}

int TopAllocationsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopAllocationsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_doc || index.row() >= rowCount()) return {};
  const auto& p = m_doc->deviceAnalysis()->at_peak[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Size:
        return bytesText(p.bytes);
      case Address:
        return hex(p.addr);
      case Allocated:
        return p.alloc_index < 0 ? tr("before the trace") : tr("entry %1").arg(p.alloc_index);
      case Category:
        return safeText(p.category.label());
      case Where:
        return p.where.empty() ? tr("(no stack)") : safeText(p.where);
      case Rule:
        return safeText(p.category.rule);
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {  // sort keys
    switch (index.column()) {
      case Size:
        return QVariant::fromValue<qint64>(p.bytes);
      case Allocated:
        return QVariant::fromValue<qint64>(p.alloc_index);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ToolTipRole && (index.column() == Category || index.column() == Rule))
    return tr("%1: %2").arg(safeText(p.category.label()), safeText(p.category.rule));
  if (role == Qt::ToolTipRole) return framesText(index.row());
  if (role == Qt::TextAlignmentRole && index.column() == Size) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant TopAllocationsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Size:
      return tr("Size");
    case Address:
      return tr("Address");
    case Allocated:
      return tr("Allocated at");
    case Category:
      return tr("Category");
    case Where:
      return tr("Where (innermost user frame)");
    case Rule:
      return tr("Category rule");
    default:
      return {};
  }
}

QString TopAllocationsModel::framesText(int row) const {
  if (!m_doc || row < 0 || row >= rowCount()) return {};
  const auto& p = m_doc->deviceAnalysis()->at_peak[static_cast<std::size_t>(row)];
  const auto& ids = m_doc->snap->frames_of(p.frames);
  if (ids.empty()) return tr("No stack was recorded for this allocation.");
  QStringList lines;
  for (std::uint32_t id : ids) {
    const auto& f = m_doc->snap->frames[id];
    lines << QStringLiteral("%1:%2 in %3").arg(safeText(f.filename)).arg(f.line).arg(safeText(f.name));
  }
  return lines.join(QLatin1Char('\n'));
}

void SegmentStateModel::setState(std::shared_ptr<const snapshot::AllocatorState> state) {
  beginResetModel();
  m_state = std::move(state);
  endResetModel();
}

int SegmentStateModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_state ? 0 : static_cast<int>(m_state->segments.size());
}

int SegmentStateModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SegmentStateModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_state || index.row() >= rowCount()) return {};
  const auto& s = m_state->segments[static_cast<std::size_t>(index.row())];
  qint64 allocated = 0;
  for (const auto& b : s.blocks) allocated += b.requested;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Address:
        return hex(s.address);
      case Size:
        return bytesText(s.size);
      case Pool:
        return s.large ? tr("large") : tr("small");
      case LiveBlocks:
        return static_cast<qulonglong>(s.blocks.size());
      case Allocated:
        return bytesText(allocated);
      case Free:
        return bytesText(s.free_bytes);
      case LargestFree:
        return bytesText(s.largest_free);
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case Size:
        return QVariant::fromValue<qint64>(s.size);
      case Allocated:
        return QVariant::fromValue<qint64>(allocated);
      case Free:
        return QVariant::fromValue<qint64>(s.free_bytes);
      case LargestFree:
        return QVariant::fromValue<qint64>(s.largest_free);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != Address && index.column() != Pool)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant SegmentStateModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Segment",   "Size", "Pool",        "Live blocks",
                                 "Allocated", "Free", "Largest free"};
  return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

void DiffModel::setDiff(std::shared_ptr<const snapshot::SnapshotDiff> diff) {
  beginResetModel();
  m_rows.clear();
  if (diff) {
    for (const auto& r : diff->totals) {
      const bool count = r.name == "segments" || r.name == "blocks" || r.name == "trace entries";
      m_rows.push_back({tr("totals"), safeText(r.name), r.a, r.b, count});
    }
    for (const auto& r : diff->categories)
      m_rows.push_back({tr("at the peak"), safeText(r.name), r.a, r.b, false});
    for (const auto& r : diff->sites)
      m_rows.push_back({tr("site at the peak"), safeText(r.name), r.a, r.b, false});
  }
  endResetModel();
}

int DiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int DiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  auto value = [&](qint64 v) { return r.count ? QLocale().toString(v) : bytesText(v); };
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Name:
        return r.section + QStringLiteral(": ") + r.name;
      case A:
        return value(r.a);
      case B:
        return value(r.b);
      case Delta:
        return r.count ? QStringLiteral("%1%2")
                             .arg(r.b - r.a >= 0 ? QStringLiteral("+") : QString())
                             .arg(r.b - r.a)
                       : signedBytes(r.b - r.a);
      default:
        return {};
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Delta && r.b != r.a)
    return QColor(r.b > r.a ? QColor(180, 40, 40) : QColor(30, 130, 60));
  if (role == Qt::TextAlignmentRole && index.column() != Name) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("What");
    case A:
      return tr("A (this file)");
    case B:
      return tr("B (compared)");
    case Delta:
      return tr("B \u2212 A");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
