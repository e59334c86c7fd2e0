// The Live page's ranks compared as one job (rank_comparison_model.h).

#include "ui/live/rank_comparison_model.h"

#include <algorithm>
#include <limits>

#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

constexpr qint64 kUnknown = std::numeric_limits<qint64>::max();  // sorts last

QString bytes(std::int64_t b) { return QString::fromStdString(format_bytes(b)); }
QString exact(std::int64_t b) { return QString::fromStdString(format_bytes_exact(b)) + QStringLiteral(" B"); }

}  // namespace

void RankComparisonModel::setComparison(std::shared_ptr<const live::RecordingComparison> comparison) {
  beginResetModel();
  m_comparison = std::move(comparison);
  endResetModel();
}

int RankComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_comparison ? 0 : int(m_comparison->ranks.size());
}

QVariant RankComparisonModel::text(const live::RecordingRankFigures& f, int column) const {
  switch (column) {
    case Rank:
      return QString::number(f.rank);
    case Host:
      return safeText(f.host);
    case PeakAllocated:
      return f.has_allocated ? bytes(f.peak_allocated) : QStringLiteral("-");
    case PeakReserved:
      return f.has_reserved ? bytes(f.peak_reserved) : QStringLiteral("-");
    case PeakDriver:
      return f.peak_driver ? bytes(*f.peak_driver) : QStringLiteral("-");
    case Capacity:
      return f.capacity ? bytes(*f.capacity) : tr("unknown");
    case Tightest:
      return f.tightest ? QString::fromStdString(live::recording_tightest_text(*f.tightest, m_comparison->t0))
                        : QStringLiteral("-");
    case Ooms:
      if (f.ooms.empty()) return QStringLiteral("-");
      {
        const auto first = std::min_element(f.ooms.begin(), f.ooms.end(),
                                            [](const auto& x, const auto& y) { return x.t < y.t; });
        const QString text = safeText(live::recording_oom_text(*first, m_comparison->t0));
        return f.ooms.size() == 1 ? tr("1 OOM event, %1").arg(text)
                                  : tr("%1 OOM events, the first %2").arg(f.ooms.size()).arg(text);
      }
    default:
      return {};
  }
}

QVariant RankComparisonModel::sortKey(const live::RecordingRankFigures& f, int column) const {
  switch (column) {
    case Rank:
      return f.rank;
    case Host:
      return safeText(f.host);
    case PeakAllocated:
      return f.has_allocated ? qint64(f.peak_allocated) : kUnknown;
    case PeakReserved:
      return f.has_reserved ? qint64(f.peak_reserved) : kUnknown;
    case PeakDriver:
      return f.peak_driver ? qint64(*f.peak_driver) : kUnknown;
    case Capacity:
      return f.capacity ? qint64(*f.capacity) : kUnknown;
    case Tightest:
      return f.tightest ? f.tightest->fraction() : std::numeric_limits<double>::infinity();
    case Ooms:
      return f.ooms.empty() ? kUnknown : qint64(f.ooms.front().t);
    default:
      return {};
  }
}

QVariant RankComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_comparison || index.row() >= rowCount()) return {};
  const live::RecordingRankFigures& f = m_comparison->ranks[std::size_t(index.row())];
  if (role == Qt::DisplayRole) return text(f, index.column());
  if (role == Qt::UserRole) return sortKey(f, index.column());
  if (role == Qt::TextAlignmentRole && index.column() >= PeakAllocated && index.column() <= Capacity)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    switch (index.column()) {
      case PeakAllocated:
        return f.has_allocated ? exact(f.peak_allocated) : QVariant();
      case PeakReserved:
        return f.has_reserved ? exact(f.peak_reserved) : QVariant();
      case Capacity:
        return f.capacity
                   ? plainToolTip(tr("%1, from the %2").arg(exact(*f.capacity), safeText(f.capacity_from)))
                   : QVariant();
      case Ooms: {
        QStringList lines;
        for (const live::RecordingOom& o : f.ooms)
          lines << safeText(live::recording_oom_text(o, m_comparison->t0));
        return lines.isEmpty() ? QVariant() : QVariant(plainToolTip(lines.join(QLatin1Char('\n'))));
      }
      default:
        return {};
    }
  }
  return {};
}

QVariant RankComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank:
      return tr("Rank");
    case Host:
      return tr("Host");
    case PeakAllocated:
      return tr("Peak allocated");
    case PeakReserved:
      return tr("Peak reserved");
    case PeakDriver:
      return tr("Peak driver");
    case Capacity:
      return tr("Capacity");
    case Tightest:
      return tr("Tightest headroom");
    case Ooms:
      return tr("OOM events [read]");
    default:
      return {};
  }
}

QString comparisonVerdictText(const live::RecordingComparison& c) {
  QString s = QStringLiteral("verdict: rank %1 (%2)").arg(c.verdict.rank).arg(safeText(c.verdict.kind));
  for (const std::string& sentence : c.verdict.sentences) s += QLatin1Char('\n') + safeText(sentence);
  return s;
}

QString comparisonImbalanceText(const live::RecordingComparison& c) {
  return safeText(live::recording_imbalance_text(c));
}

}  // namespace oomscope::ui
