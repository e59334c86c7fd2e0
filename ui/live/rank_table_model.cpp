// The Live page's rank table (see rank_table_model.h).

#include "ui/live/rank_table_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <QStringList>
#include <algorithm>
#include <limits>
#include <tuple>

#include "core/live/client/store.h"
#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

using live::Field;

namespace {

void fillForecast(LiveRankRow& row, const live::Forecast& f) {
  row.forecastKnown = true;
  row.forecastOom = f.state == live::ForecastState::Oom;
  row.forecastState = f.state;
  row.forecastCell = QString::fromStdString(live::forecast_cell(f));
  row.forecastSentence = safeText(live::forecast_sentence(f));
  if (row.forecastOom && f.oom_at_step) {
    row.oomAtStep = *f.oom_at_step;
    if (f.at_step >= 0) row.stepsAhead = std::max<qint64>(0, *f.oom_at_step - f.at_step);
  }
  if (row.forecastOom && f.oom_in_seconds) row.oomInSeconds = std::max(0.0, *f.oom_in_seconds);
}

}  // namespace

void orderByForecast(QVector<LiveRankRow>& rows) {
  constexpr qint64 unknown = std::numeric_limits<qint64>::max();
  auto key = [&](const LiveRankRow& r) {
    // group 0: a forecast OOM with a time; 1: with steps only; 2: no OOM forecast.
    const int group = !r.forecastOom ? 2 : r.oomInSeconds >= 0 ? 0 : 1;
    const double ahead = group == 0 ? r.oomInSeconds : group == 1 ? double(r.stepsAhead) : 0.0;
    return std::make_tuple(group, ahead, r.headroomKnown ? r.headroom : unknown, r.index);
  };
  QVector<int> order(rows.size());
  for (int i = 0; i < int(rows.size()); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(rows[a]) < key(rows[b]); });
  for (int pos = 0; pos < int(order.size()); ++pos) rows[order[pos]].forecastOrder = pos;
}

QString forecastBanner(const QVector<LiveRankRow>& rows, bool* oom) {
  const LiveRankRow* best = nullptr;
  int none = 0, short_ = 0, noLimit = 0;
  for (const LiveRankRow& r : rows) {
    if (r.forecastOom && (!best || r.forecastOrder < best->forecastOrder)) best = &r;
    if (!r.forecastKnown) continue;
    none += r.forecastState == live::ForecastState::NoOom;
    short_ += r.forecastState == live::ForecastState::NotEnoughHistory;
    noLimit += r.forecastState == live::ForecastState::NoLimit;
  }
  if (oom) *oom = best != nullptr;
  if (best) {
    int others = 0;
    for (const LiveRankRow& r : rows) others += r.forecastOom && &r != best;
    QString s = QObject::tr("Soonest forecast OOM: rank %1: %2").arg(best->rank, best->forecastSentence);
    if (others > 0) s += QObject::tr(" (%n other rank(s) forecast to OOM too)", nullptr, others);
    return s;
  }
  if (none + short_ + noLimit == 0) return {};
  QStringList parts;
  if (none) parts << QObject::tr("%n rank(s) with no OOM in sight", nullptr, none);
  if (short_) parts << QObject::tr("%n rank(s) with too little history yet", nullptr, short_);
  if (noLimit) parts << QObject::tr("%n rank(s) with no limit known", nullptr, noLimit);
  return QObject::tr("No OOM forecast: %1 [derived]").arg(parts.join(QStringLiteral(", ")));
}

QVector<LiveRankRow> liveRankRows(const live::Store& store, const live::ForecastTracker* forecasts) {
  QVector<LiveRankRow> rows;
  const auto& ranks = store.ranks();
  rows.reserve(int(ranks.size()));
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const live::RankSeries& r = ranks[i];
    LiveRankRow row;
    row.index = int(i);
    if (const live::Headroom h = live::headroom(r); h.known) {
      row.headroomKnown = true;
      row.headroom = h.bytes();
      row.capacity = h.capacity;
    }
    row.rank = QString::number(r.hello ? r.hello->rank : int(i));
    row.endpoint = safeText(r.endpoint);
    row.connected = r.connected;
    row.status = r.connected ? QObject::tr("live") : safeText(r.status.empty() ? "waiting" : r.status);
    row.samples = qint64(r.samples.size());
    row.thinned = qint64(r.thinned);
    row.bad = r.bad_lines;
    row.badWhy = safeText(r.last_bad_line);
    if (!r.shapes.empty()) row.shapes = r.shapes.back().distinct;
    if (const live::Sample* s = r.last()) {
      auto get = [&](Field f) { return s->has(f) ? qint64(s->get(f)) : qint64(-1); };
      row.step = get(Field::Step);
      row.allocated = get(Field::Allocated);
      row.reserved = get(Field::Reserved);
      row.top = s->has(Field::Driver) ? get(Field::Driver) : get(Field::DeviceUsed);
      if (row.top >= 0 && row.allocated >= 0) row.gap = row.top - row.allocated;
      row.rss = get(Field::Rss);
      row.ooms = get(Field::Ooms);
      row.retries = get(Field::AllocRetries);
    }
    if (forecasts)
      if (const live::Forecast* f = forecasts->latest(int(i))) fillForecast(row, *f);
    rows.push_back(row);
  }
  orderByForecast(rows);
  return rows;
}

void RankTableModel::setRows(QVector<LiveRankRow> rows) {
  if (rows.size() != m_rows.size()) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    return;
  }
  m_rows = std::move(rows);
  if (!m_rows.isEmpty()) emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

QVariant RankTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size()) return {};
  const LiveRankRow& r = m_rows[index.row()];
  auto bytes = [](qint64 v) {
    return v < 0 ? QStringLiteral("\u2014") : QString::fromStdString(format_bytes(std::int64_t(v)));
  };
  auto count = [](qint64 v) { return v < 0 ? QStringLiteral("\u2014") : QLocale().toString(v); };
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Rank:
        return r.rank;
      case Status:
        return r.status;
      case Forecast:
        return r.forecastKnown ? r.forecastCell : QStringLiteral("\u2014");
      case Step:
        return count(r.step);
      case Allocated:
        return bytes(r.allocated);
      case Reserved:
        return bytes(r.reserved);
      case Top:
        return bytes(r.top);
      case Gap:
        return bytes(r.gap);
      case Headroom:
        return r.headroomKnown ? QString::fromStdString(format_bytes(std::int64_t(r.headroom))) +
                                     QStringLiteral(" (%1%)").arg(
                                         100.0 * double(r.headroom) / double(r.capacity), 0, 'f', 0)
                               : QStringLiteral("\u2014");
      case Rss:
        return bytes(r.rss);
      case Ooms:
        return count(r.ooms);
      case Retries:
        return count(r.retries);
      case Shapes:
        return count(r.shapes);
      case Bad:
        return count(r.bad);
    }
  }
  if (role == Qt::UserRole) {  // sort keys
    constexpr qint64 unknown = std::numeric_limits<qint64>::max();
    auto key = [&](qint64 v) { return v < 0 ? unknown : v; };
    switch (index.column()) {
      case Rank:
        return r.rank.toLongLong();
      case Status:
        return r.connected ? 1 : 0;  // down first
      case Forecast:
        return r.forecastOrder;
      case Step:
        return key(r.step);
      case Allocated:
        return key(r.allocated);
      case Reserved:
        return key(r.reserved);
      case Top:
        return key(r.top);
      case Gap:
        return r.gap == -1 ? unknown : r.gap;
      case Headroom:
        return r.headroomKnown ? r.headroom : unknown;
      case Rss:
        return key(r.rss);
      case Ooms:
        return key(r.ooms);
      case Retries:
        return key(r.retries);
      case Shapes:
        return key(r.shapes);
      case Bad:
        return r.bad;
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() >= Headroom)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole) {
    if (index.column() == Status && r.status != tr("recorded"))
      return QBrush(r.connected ? QColor(0x2c, 0xa0, 0x2c) : QColor(0xd6, 0x27, 0x28));
    if (index.column() == Ooms && r.ooms > 0) return QBrush(QColor(0xd6, 0x27, 0x28));
    if (index.column() == Forecast && r.forecastOom) return QBrush(QColor(0xd6, 0x27, 0x28));
    if (index.column() == Headroom && r.headroomKnown && r.headroom * 10 < r.capacity)
      return QBrush(QColor(0xd6, 0x27, 0x28));  // under 10% left
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == Rank) {
      QString tip = r.endpoint + QStringLiteral(" \u00b7 ") + QLocale().toString(r.samples) + tr(" samples");
      if (r.thinned > 0)
        tip += tr(" (%1 older ones merged into their neighbours to bound memory; peaks kept)")
                   .arg(QLocale().toString(r.thinned));
      return plainToolTip(tip);  // endpoints and agents' texts: never markup
    }
    if (index.column() == Status) return plainToolTip(r.status);
    if (index.column() == Forecast && r.forecastKnown) return plainToolTip(r.forecastSentence);
    if (index.column() == Bad && r.bad) return plainToolTip(tr("Last skipped line: %1").arg(r.badWhy));
  }
  return {};
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  static const char* names[] = {"rank",      "status",   "OOM forecast",  "headroom", "step",
                                "allocated", "reserved", "driver/device", "gap",      "RSS",
                                "OOMs",      "retries",  "shapes",        "bad lines"};
  if (role == Qt::DisplayRole) return tr(names[section]);
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Top:
        return tr(
            "The MPS driver figure, or the device memory the driver charges to the process (CUDA "
            "context and libraries included).");
      case Gap:
        return tr("driver/device minus allocated: memory the framework's allocator does not account for.");
      case Forecast:
        return tr(
            "Derived: the optimizer step (with its range) at which the figure that limits the rank is "
            "forecast to reach its limit, or why none is forecast. Sorted ascending, the soonest forecast "
            "OOM is on top, then the other ranks by headroom. The tooltip of a cell says the model's "
            "reason.");
      case Headroom:
        return tr(
            "Capacity minus use: the device's total (or the MPS recommended maximum) minus device_used, "
            "driver or reserved. Sorted ascending, the rank closest to OOM is on top.");
      case Shapes:
        return tr(
            "Distinct padded input shapes seen so far; a number still rising keeps graph caches growing.");
      case Bad:
        return tr("Lines skipped: malformed, wrong-typed or oversized.");
      default:
        return {};
    }
  }
  return {};
}

}  // namespace oomscope::ui
