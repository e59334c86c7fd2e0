#include "ui/models/snapshot_rank_model.h"

#include <QFileInfo>
#include <QFont>
#include <QLocale>

#include "core/util/bytes.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

using Kind = RecordTableModel::CellKind;
using Origin = RecordTableModel::Origin;
using Spec = RecordTableModel::ColumnSpec;

std::vector<Spec> rankColumns() {
  return {
      {QStringLiteral("Rank"),
       QStringLiteral(
           "The rank: from the file or folder name (rank3_oom.pickle, rank_3/), else the device id."),
       Kind::Id,
       Origin::Read,
       {}},
      {QStringLiteral("Device"),
       QStringLiteral("The device whose trace the snapshot records."),
       Kind::Id,
       Origin::Read,
       {}},
      {QStringLiteral("Peak allocated"), QStringLiteral("The Active Memory Timeline's peak."), Kind::Bytes,
       Origin::Derived, QStringLiteral("allocs and frees of the trace replayed as memory_viz does.")},
      {QStringLiteral("Peak reserved"),
       QStringLiteral("The segment timeline's peak (memory held from CUDA)."), Kind::Bytes, Origin::Derived,
       QStringLiteral("segment_alloc and segment_free replayed.")},
      {QStringLiteral("Capacity"),
       QStringLiteral(
           "What the rank's process could hold: given, or at the OOM reserved + free on the device."),
       Kind::Bytes, Origin::Derived,
       QStringLiteral("--capacity when given, else reserved at the OOM entry + its device_free; other "
                      "processes and the CUDA context are not in it.")},
      {QStringLiteral("OOM"),
       QStringLiteral("The last oom entry: the request that failed, the free bytes on the device, the time "
                      "since the earliest trace entry of any rank."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Largest at peak"),
       QStringLiteral("The largest category of memory live at the rank's peak (your rules first when "
                      "loaded, then guessed from stacks)."),
       Kind::Text, Origin::Derived,
       QStringLiteral(
           "Categories > Load Category Rules\u2026 first, then the built-in rules (docs/categories.md).")},
      {QStringLiteral("File"),
       QStringLiteral("The snapshot file; its path in the tooltip."),
       Kind::Text,
       Origin::Read,
       {}},
  };
}

QString bytes(std::int64_t b) { return QString::fromStdString(format_bytes(b)); }

}  // namespace

std::vector<SnapshotRankRow> snapshotRankRows(const snapshot::RankComparison& c) {
  std::int64_t t0 = -1;
  for (const snapshot::RankFigures& f : c.ranks)
    if (f.first_time_us >= 0 && (t0 < 0 || f.first_time_us < t0)) t0 = f.first_time_us;
  std::vector<SnapshotRankRow> rows;
  for (const snapshot::RankFigures& f : c.ranks) {
    SnapshotRankRow r;
    r.rank = f.rank;
    r.device = f.device;
    r.peakAllocated = f.peak_allocated;
    r.peakReserved = f.peak_reserved;
    r.capacity = f.capacity;
    if (f.capacity_source == snapshot::RankCapacitySource::Given)
      r.capacityFrom = QStringLiteral("given (--capacity)");
    else if (f.capacity_source == snapshot::RankCapacitySource::AtOom)
      r.capacityFrom = QStringLiteral("reserved at the OOM + device_free");
    if (f.oom) {
      r.oom = QStringLiteral("%1 request, %2 free").arg(bytes(f.oom->requested), bytes(f.oom->device_free));
      if (f.oom->time_us >= 0 && t0 >= 0)
        r.oom +=
            QStringLiteral(", at %1 s").arg(QLocale().toString(double(f.oom->time_us - t0) / 1e6, 'f', 3));
    }
    if (!f.categories.empty())
      r.largest = QStringLiteral("%1 %2").arg(safeText(f.categories.front().label()),
                                              bytes(f.categories.front().bytes));
    r.path = QString::fromStdString(f.path);
    r.file = safeText(QFileInfo(r.path).fileName().toStdString());
    r.verdict = f.rank == c.verdict.rank;
    rows.push_back(std::move(r));
  }
  return rows;
}

SnapshotRankModel::SnapshotRankModel(QObject* parent) : RecordTableModel(rankColumns(), parent) {}

void SnapshotRankModel::setRows(std::vector<SnapshotRankRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant SnapshotRankModel::rawValue(int row, int column) const {
  const SnapshotRankRow& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Rank:
      return r.rank;
    case Device:
      return r.device;
    case PeakAllocated:
      return r.peakAllocated;
    case PeakReserved:
      return r.peakReserved;
    case Capacity:
      return r.capacity ? QVariant(*r.capacity) : QVariant();
    case Oom:
      return r.oom.isEmpty() ? QStringLiteral("none") : r.oom;
    case Largest:
      return r.largest;
    case File:
      return r.file;
    default:
      return {};
  }
}

QString SnapshotRankModel::unknownReason(int row, int column) const {
  Q_UNUSED(row);
  if (column == Capacity)
    return tr(
        "a snapshot without an OOM does not record its device's capacity (the CLI's --capacity gives one)");
  return {};
}

QVariant SnapshotRankModel::data(const QModelIndex& index, int role) const {
  if (index.isValid() && role == Qt::FontRole && m_rows.at(std::size_t(index.row())).verdict) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (index.isValid() && role == Qt::ToolTipRole) {
    const SnapshotRankRow& r = m_rows.at(std::size_t(index.row()));
    if (index.column() == File) return plainToolTip(r.path);
    if (index.column() == Capacity && r.capacity) return r.capacityFrom;
  }
  if (index.isValid() && role == Qt::DisplayRole && index.column() == Rank &&
      m_rows.at(std::size_t(index.row())).verdict)
    return QStringLiteral("%1  \u25c0 verdict").arg(m_rows.at(std::size_t(index.row())).rank);
  return RecordTableModel::data(index, role);
}

}  // namespace oomscope::ui
