#include "ui/models/kineto_rank_model.h"

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
       QStringLiteral("The rank: the trace's distributedInfo rank, else a rank number in its file name."),
       Kind::Id,
       Origin::Read,
       {}},
      {QStringLiteral("Device"),
       QStringLiteral("The accelerator with the most [memory] events in the trace."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Peak allocated"),
       QStringLiteral("The largest Total Allocated of the device's [memory] events."), Kind::Bytes,
       Origin::Read,
       QStringLiteral("without Total Allocated (old schema): the running sum of Bytes, marked *.")},
      {QStringLiteral("Peak reserved"),
       QStringLiteral("The largest Total Reserved of the device's [memory] events."),
       Kind::Bytes,
       Origin::Read,
       {}},
      {QStringLiteral("Capacity"),
       QStringLiteral("The device's totalGlobalMem in deviceProperties, or the capacity given."),
       Kind::Bytes,
       Origin::Read,
       {}},
      {QStringLiteral("OOM"),
       QStringLiteral("The first [OutOfMemory] event: the request that failed and the time since the "
                      "earliest [memory] event of any rank."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Steps"),
       QStringLiteral("The ProfilerStep#N markers the trace carries."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("File"),
       QStringLiteral("The trace file; its path in the tooltip."),
       Kind::Text,
       Origin::Read,
       {}},
  };
}

QString bytes(std::int64_t b) { return QString::fromStdString(format_bytes(b)); }

}  // namespace

std::vector<KinetoRankRow> kinetoRankRows(const snapshot::KinetoRankJob& j) {
  double t0 = 0;
  bool any = false;
  for (const snapshot::KinetoRank& r : j.ranks)
    if (r.memory_events && (!any || r.first_ts_us < t0)) t0 = r.first_ts_us, any = true;
  std::vector<KinetoRankRow> rows;
  for (const snapshot::KinetoRank& f : j.ranks) {
    KinetoRankRow r;
    r.rank = f.rank;
    r.device = QString::fromStdString(f.device);
    r.peakAllocated = f.peak_allocated;
    r.peakAllocatedRead = f.peak_allocated_read;
    r.peakReserved = f.peak_reserved;
    r.capacity = f.capacity;
    if (f.capacity_source == snapshot::KinetoCapacitySource::Given)
      r.capacityFrom = QStringLiteral("given");
    else if (f.capacity_source == snapshot::KinetoCapacitySource::DeviceProperties)
      r.capacityFrom = QStringLiteral("deviceProperties.totalGlobalMem: the whole device");
    if (!f.ooms.empty()) {
      r.oom = QStringLiteral("%1 request").arg(bytes(f.ooms.front().requested));
      if (any)
        r.oom +=
            QStringLiteral(", at %1 s").arg(QLocale().toString((f.ooms.front().ts_us - t0) / 1e6, 'f', 3));
    }
    if (!f.steps.empty())
      r.steps = f.steps.size() == 1 ? QString::number(f.steps.front())
                                    : QStringLiteral("%1\u2013%2 (%3)")
                                          .arg(f.steps.front())
                                          .arg(f.steps.back())
                                          .arg(f.steps.size());
    r.path = QString::fromStdString(f.path);
    r.file = safeText(QFileInfo(r.path).fileName().toStdString());
    r.verdict = f.rank == j.verdict.rank;
    rows.push_back(std::move(r));
  }
  return rows;
}

KinetoRankModel::KinetoRankModel(QObject* parent) : RecordTableModel(rankColumns(), parent) {}

void KinetoRankModel::setRows(std::vector<KinetoRankRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant KinetoRankModel::rawValue(int row, int column) const {
  const KinetoRankRow& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Rank:
      return r.rank;
    case Device:
      return r.device.isEmpty() ? QStringLiteral("-") : r.device;
    case PeakAllocated:
      return r.peakAllocated;
    case PeakReserved:
      return r.peakReserved ? QVariant(*r.peakReserved) : QVariant();
    case Capacity:
      return r.capacity ? QVariant(*r.capacity) : QVariant();
    case Oom:
      return r.oom.isEmpty() ? QStringLiteral("none") : r.oom;
    case Steps:
      return r.steps.isEmpty() ? QStringLiteral("none") : r.steps;
    case File:
      return r.file;
    default:
      return {};
  }
}

QString KinetoRankModel::unknownReason(int row, int column) const {
  Q_UNUSED(row);
  if (column == PeakReserved) return tr("the trace's [memory] events have no Total Reserved (old schema)");
  if (column == Capacity) return tr("deviceProperties has no totalGlobalMem for this device");
  return {};
}

QVariant KinetoRankModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return RecordTableModel::data(index, role);
  const KinetoRankRow& r = m_rows.at(std::size_t(index.row()));
  if (role == Qt::FontRole && r.verdict) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == File) return plainToolTip(r.path);
    if (index.column() == Capacity && r.capacity) return r.capacityFrom;
  }
  if (role == Qt::DisplayRole && index.column() == Rank && r.verdict)
    return QStringLiteral("%1  \u25c0 verdict").arg(r.rank);
  if (role == Qt::DisplayRole && index.column() == PeakAllocated && !r.peakAllocatedRead)
    return RecordTableModel::data(index, role).toString() + QStringLiteral(" *");
  return RecordTableModel::data(index, role);
}

}  // namespace oomscope::ui
