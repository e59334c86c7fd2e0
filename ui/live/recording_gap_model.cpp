// The gap between two recordings, per rank (recording_gap_model.h).

#include "ui/live/recording_gap_model.h"

#include <limits>
#include <optional>

#include "core/util/bytes.h"

namespace oomscope::ui {

namespace {

constexpr qint64 kUnknown = std::numeric_limits<qint64>::max();

using Bytes = std::optional<std::int64_t>;

QString bytesText(const Bytes& b, bool signedChange = false) {
  if (!b) return QStringLiteral("-");
  if (!signedChange) return QString::fromStdString(format_bytes(*b));
  if (*b == 0) return QStringLiteral("0");
  return (*b > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) +
         QString::fromStdString(format_bytes(*b > 0 ? *b : -*b));
}

Bytes figure(const live::OverlayRankGap& g, int column) {
  switch (column) {
    case RecordingGapModel::AllocatedA:
      return g.peak_allocated_a;
    case RecordingGapModel::AllocatedB:
      return g.peak_allocated_b;
    case RecordingGapModel::AllocatedChange:
      return g.allocated_change();
    case RecordingGapModel::ReservedA:
      return g.peak_reserved_a;
    case RecordingGapModel::ReservedB:
      return g.peak_reserved_b;
    case RecordingGapModel::ReservedChange:
      return g.reserved_change();
    default:
      return std::nullopt;
  }
}

}  // namespace

void RecordingGapModel::setRows(std::vector<live::OverlayRankGap> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant RecordingGapModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const live::OverlayRankGap& g = m_rows[std::size_t(index.row())];
  const int c = index.column();
  const bool isChange = c == AllocatedChange || c == ReservedChange;
  if (role == Qt::DisplayRole) {
    if (c == Rank) return QString::number(g.rank);
    if (c == OomsA) return QString::number(g.ooms_a);
    if (c == OomsB) return QString::number(g.ooms_b);
    return bytesText(figure(g, c), isChange);
  }
  if (role == Qt::UserRole) {
    if (c == Rank) return g.rank;
    if (c == OomsA) return g.ooms_a;
    if (c == OomsB) return g.ooms_b;
    const Bytes b = figure(g, c);
    return b ? qint64(*b) : kUnknown;
  }
  if (role == Qt::ToolTipRole && c != Rank && c != OomsA && c != OomsB) {
    const Bytes b = figure(g, c);
    return b ? QVariant(QString::fromStdString(format_bytes_exact(*b)) + QStringLiteral(" B")) : QVariant();
  }
  if (role == Qt::TextAlignmentRole && c != Rank) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant RecordingGapModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank:
      return tr("Rank");
    case AllocatedA:
      return tr("Peak allocated A");
    case AllocatedB:
      return tr("Peak allocated B");
    case AllocatedChange:
      return tr("Change");
    case ReservedA:
      return tr("Peak reserved A");
    case ReservedB:
      return tr("Peak reserved B");
    case ReservedChange:
      return tr("Change");
    case OomsA:
      return tr("OOMs A");
    case OomsB:
      return tr("OOMs B");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
