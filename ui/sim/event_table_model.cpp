#include "ui/sim/event_table_model.h"

#include <QColor>

#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

SimEventTableModel::SimEventTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SimEventTableModel::setRun(RunPtr run, std::int64_t step) {
  beginResetModel();
  m_run = std::move(run);
  m_step = m_run ? std::clamp<std::int64_t>(step, 0, m_run->steps()) : 0;
  m_rows = m_run ? int(m_run->eventsAfter(m_step)) : 0;
  endResetModel();
}

void SimEventTableModel::setStep(std::int64_t step) {
  if (!m_run) return;
  m_step = std::clamp<std::int64_t>(step, 0, m_run->steps());
  const int rows = int(m_run->eventsAfter(m_step));
  if (rows > m_rows) {
    beginInsertRows({}, m_rows, rows - 1);
    m_rows = rows;
    endInsertRows();
  } else if (rows < m_rows) {
    beginRemoveRows({}, rows, m_rows - 1);
    m_rows = rows;
    endRemoveRows();
  }
}

int SimEventTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }
int SimEventTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString SimEventTableModel::sceneList(const RunData& run, const sim::Event& e, int limit) {
  const auto ids = run.log.scenes(e);
  QStringList parts;
  for (std::size_t i = 0; i < ids.size() && int(i) < limit; ++i) parts << QString::number(ids[i]);
  QString s = parts.join(QStringLiteral(", "));
  if (int(ids.size()) > limit) s += QStringLiteral(" +%1 more").arg(ids.size() - std::size_t(limit));
  return s;
}

QVariant SimEventTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_run || index.row() >= m_rows || index.column() >= ColumnCount) return {};
  const sim::Event& e = m_run->log.events[std::size_t(index.row())];
  const int col = index.column();
  if (role == EventIdRole) return qlonglong(e.id);
  if (role == Qt::DisplayRole || role == SortRole) {
    const bool sort = role == SortRole;
    switch (col) {
      case Id:
        return sort ? QVariant(qlonglong(e.id)) : QVariant(simfmt::count(e.id));
      case Step:
        return sort ? QVariant(qlonglong(e.step)) : QVariant(simfmt::count(e.step));
      case Batch:
        return qlonglong(e.batch);
      case Depth:
        return int(e.depth);
      case Origin:
        return e.axis >= 0 ? simfmt::originName(e.origin) + QStringLiteral(" (") + simfmt::axisName(e.axis) +
                                 QStringLiteral(")")
                           : simfmt::originName(e.origin);
      case Outcome:
        return sim_style::outcomeLabel(e.outcome);
      case Scenes:
        return sceneList(*m_run, e, 4);
      case Points:
        return sort ? QVariant(qlonglong(e.points)) : QVariant(simfmt::count(e.points));
      case Needed:
        if (e.outcome == sim::Outcome::Dropped)
          return sort ? QVariant(qlonglong(0)) : QVariant(QStringLiteral("—"));
        return sort ? QVariant(qlonglong(e.bytes_needed)) : QVariant(simfmt::bytes(e.bytes_needed));
      case Available:
        return sort ? QVariant(qlonglong(e.available)) : QVariant(simfmt::bytes(e.available));
      case Start:
        return sort ? QVariant(qlonglong(e.start_ns)) : QVariant(simfmt::duration(e.start_ns));
      case Duration:
        return sort ? QVariant(qlonglong(e.duration_ns)) : QVariant(simfmt::duration(e.duration_ns));
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole)
    return col == Origin || col == Outcome || col == Scenes ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                            : int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::DecorationRole && col == Outcome) return sim_style::outcomeColor(e.outcome);
  if (role == Qt::ForegroundRole && col == Needed && e.outcome != sim::Outcome::Dropped &&
      e.bytes_needed > e.available)
    return sim_style::overBudget();
  if (role == Qt::ToolTipRole) {
    if (col == Needed || col == Available)
      return QStringLiteral("needed %1\navailable %2 (budget %3)")
          .arg(simfmt::bytesExact(e.bytes_needed), simfmt::bytesExact(e.available),
               simfmt::bytesExact(e.budget));
    if (col == Scenes) return sceneList(*m_run, e, 64);
  }
  return {};
}

QVariant SimEventTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  static const char* const names[] = {"#",      "Step",   "Batch",  "Depth",     "Origin", "Outcome",
                                      "Scenes", "Points", "Needed", "Available", "Start",  "Duration"};
  static const char* const tips[] = {
      "Event id, in log order.",
      "The step (one attempt plus the halves it dropped).",
      "Batch index over the run.",
      "Splits between the batch and this fragment.",
      "How the fragment was made; the split axis in brackets.",
      "ok, OOM, bug (swallowed by catch-everything), dropped (under the floor) or crash.",
      "Global scene ids in the fragment.",
      "Points in the fragment.",
      "Bytes the attempt needs: fixed bytes + bytes per point x points.",
      "Budget minus the fragmentation a previous OOM left.",
      "Simulated time at the start of the attempt.",
      "Simulated duration, including host copy and cache flush after a failure."};
  if (role == Qt::DisplayRole) return QString::fromUtf8(names[section]);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
  return {};
}

}  // namespace oomscope::ui
