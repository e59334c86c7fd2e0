#include "ui/models/host_table_model.h"

#include <QFileInfo>
#include <QFont>
#include <QLocale>
#include <algorithm>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

using Kind = RecordTableModel::CellKind;
using Origin = RecordTableModel::Origin;
using Spec = RecordTableModel::ColumnSpec;

QString safe(const std::string& text) { return safeText(text); }

std::vector<Spec> hostColumns() {
  const QString pool = QStringLiteral(
      "the allocator the analysed module's executions allocate from, else the one with the "
      "highest peak.");
  return {
      {QStringLiteral("Host"),
       QStringLiteral("Host name recorded in the capture (XSpace.hostnames); its file in the tooltip."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Peak in use"),
       QStringLiteral("Most bytes in use in the host's pool during the capture."),
       Kind::Bytes,
       Origin::Read,
       {}},
      {QStringLiteral("Capacity"), QStringLiteral("Size of the host's pool."), Kind::Bytes, Origin::Derived,
       QStringLiteral("bytes_allocated + bytes_available + bytes_reserved, the largest seen, of ") + pool},
      {QStringLiteral("Peak %"), QStringLiteral("How full the pool got: peak in use / capacity."), Kind::Text,
       Origin::Derived, QStringLiteral("peak in use divided by capacity.")},
      {QStringLiteral("Executions"), QStringLiteral("Module executions seen on the host."), Kind::Count,
       Origin::Derived, QStringLiteral("counted from the host's execution spans.")},
      {QStringLiteral("Retries"),
       QStringLiteral("AllocatorRetry waits: the allocator had to wait for memory to be freed."), Kind::Count,
       Origin::Derived, QStringLiteral("counted from AllocatorRetry::AllocateRaw events.")},
      {QStringLiteral("Ran out (first sign)"),
       QStringLiteral(
           "The earliest AllocatorRetry wait or never-launched execution: on one wall clock (UTC) when every "
           "capture records its start, else by the host's own clock; relative to the earliest of any host."),
       Kind::Text, Origin::Derived,
       QStringLiteral("from the event times and each capture's recorded start; as exact as the hosts' clocks "
                      "agree.")},
      {QStringLiteral("Diagnosis"), QStringLiteral("The verdict of the host's report (default module)."),
       Kind::Text, Origin::Derived, QStringLiteral("the report's diagnosis rules (docs/report-rules.md).")},
  };
}

}  // namespace

std::vector<HostRow> hostRows(const analysis::HostComparison& comparison,
                              const std::vector<analysis::HostReport>& reports) {
  std::optional<std::int64_t> earliest;
  for (const auto& h : comparison.hosts)
    if (h.first_trouble_ps && (!earliest || *h.first_trouble_ps < *earliest)) earliest = h.first_trouble_ps;
  std::optional<std::int64_t> earliestWall;
  for (const auto& h : comparison.hosts)
    if (h.first_trouble_wall_ns && (!earliestWall || *h.first_trouble_wall_ns < *earliestWall))
      earliestWall = h.first_trouble_wall_ns;
  std::vector<HostRow> rows;
  for (std::size_t i = 0; i < comparison.hosts.size(); ++i) {
    const analysis::HostStanding& h = comparison.hosts[i];
    HostRow row;
    row.host = safe(h.host);
    row.path = QString::fromStdString(h.path);
    row.file = safe(QFileInfo(row.path).fileName().toStdString());
    row.pool = safe(h.pool);
    row.peak = h.peak_bytes;
    row.capacity = h.capacity_bytes;
    if (h.peak_fraction) {
      row.peakFraction = h.peak_fraction;
      row.peakPercent = percentText(*h.peak_fraction * 100);
    }
    row.executions = h.executions;
    row.retries = h.retries;
    if (!h.first_trouble_ps) row.firstTrouble = safe(h.first_trouble);  // empty, or "... (time unknown)"
    if (comparison.one_clock && h.first_trouble_wall_ns && earliestWall) {
      // On one clock: the wall-clock time, and how long after the first host's.
      const double seconds = double(*h.first_trouble_wall_ns - *earliestWall) / 1e9;
      row.firstTrouble =
          QStringLiteral("%1 at %2 (+%3 s)")
              .arg(safe(h.first_trouble),
                   QString::fromStdString(analysis::format_wall_time(*h.first_trouble_wall_ns)),
                   QLocale().toString(seconds, 'f', 3));
    } else if (h.first_trouble_ps && earliest) {
      const double seconds = double(*h.first_trouble_ps - *earliest) / 1e12;
      row.firstTrouble =
          QStringLiteral("%1 at +%2 s").arg(safe(h.first_trouble), QLocale().toString(seconds, 'f', 3));
    }
    if (i < reports.size()) row.verdict = reportVerdict(reports[i]);
    row.ranOutFirst = comparison.first_out == i;
    rows.push_back(std::move(row));
  }
  return rows;
}

HostTableModel::HostTableModel(QObject* parent) : RecordTableModel(hostColumns(), parent) {}

void HostTableModel::setRows(std::vector<HostRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant HostTableModel::rawValue(int row, int column) const {
  const HostRow& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Host:
      return r.ranOutFirst ? r.host + QStringLiteral("  \u25c0 first") : r.host;
    case Peak:
      return r.peak ? QVariant(*r.peak) : QVariant();
    case Capacity:
      return r.capacity ? QVariant(*r.capacity) : QVariant();
    case PeakPercent:
      return r.peakPercent.isEmpty() ? QVariant() : QVariant(r.peakPercent);
    case Executions:
      return r.executions;
    case Retries:
      return r.retries;
    case FirstTrouble:
      return r.firstTrouble.isEmpty() ? QVariant() : QVariant(r.firstTrouble);
    case Verdict:
      return r.verdict;
    default:
      return {};
  }
}

QString HostTableModel::unknownReason(int row, int column) const {
  Q_UNUSED(row);
  if (column == FirstTrouble) return tr("no AllocatorRetry wait and no never-launched execution");
  return tr("the capture has no allocator events with a capacity");
}

QVariant HostTableModel::data(const QModelIndex& index, int role) const {
  if (index.isValid() && role == Qt::FontRole && m_rows.at(std::size_t(index.row())).ranOutFirst) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (index.isValid() && role == Qt::ToolTipRole && index.column() == Host)
    return plainToolTip(m_rows.at(std::size_t(index.row())).path);
  if (index.isValid() && index.column() == PeakPercent) {
    const HostRow& r = m_rows.at(std::size_t(index.row()));
    // Sorted by the share itself, not by its text; right-aligned as the other figures.
    if (role == SortRole) return r.peakFraction ? QVariant(*r.peakFraction) : QVariant(-1.0);
    if (role == Qt::TextAlignmentRole)
      return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && r.peakFraction)
      return QStringLiteral("%1 % of the capacity").arg(*r.peakFraction * 100, 0, 'f', 3);
  }
  if (index.isValid() && role == Qt::ToolTipRole && index.column() == Verdict)
    return plainToolTip(m_rows.at(std::size_t(index.row())).verdict);
  return RecordTableModel::data(index, role);
}

QVariant HostTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && section == PeakPercent && role == Qt::TextAlignmentRole)
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  return RecordTableModel::headerData(section, orientation, role);
}

}  // namespace oomscope::ui
