#pragma once
// The Live page's rank table: one row per endpoint with its connection state, its OOM forecast and latest
// figures, refreshed from a snapshot of the store and the forecasts (setRows), so the view never touches
// the session. Qt::UserRole gives each cell's sort key (a number; unknown figures sort last), so a
// QSortFilterProxyModel sorts by the forecast column with the soonest forecast OOM on top, then the other
// ranks by headroom.

#include <QAbstractTableModel>
#include <QVector>

#include "core/live/client/forecast_tracker.h"
#include "core/live/client/store.h"

namespace oomscope::ui {

struct LiveRankRow {
  QString rank, endpoint, status;
  bool connected = false;
  qint64 step = -1, allocated = -1, reserved = -1, top = -1, gap = -1, rss = -1, ooms = -1, retries = -1;
  qint64 shapes = -1, bad = 0, samples = 0, thinned = 0;
  qint64 headroom = -1, capacity = -1;  // -1: not known (see core/live/client/store.h)
  bool headroomKnown = false;
  int index = 0;  // the rank's index in the session (its chart)
  QString badWhy;
  // The OOM forecast (core/live/client/forecast.h), derived; forecastKnown false before the rank's first.
  bool forecastKnown = false;
  bool forecastOom = false;
  live::ForecastState forecastState = live::ForecastState::NotEnoughHistory;
  QString forecastCell, forecastSentence;
  qint64 oomAtStep = -1, stepsAhead = -1;  // -1: no step forecast
  double oomInSeconds = -1;                // -1: no time forecast
  int forecastOrder = 0;                   // position by soonest forecast OOM, then headroom (0 first)
};

// Rows of every rank, with each rank's latest forecast from `forecasts` (null: none) and forecastOrder set.
QVector<LiveRankRow> liveRankRows(const live::Store& store, const live::ForecastTracker* forecasts = nullptr);
// Sets forecastOrder: first the ranks with a forecast OOM, soonest first (by seconds ahead where the
// forecast has a time, then by steps ahead), then the others; ties and the others by headroom (unknown
// last), then by session index.
void orderByForecast(QVector<LiveRankRow>& rows);
// The Live page's banner: "rank 3: OOM forecast at step 312 ... [derived]" for the row whose forecast OOM
// is soonest; else how many ranks have no OOM in sight, too little history or no limit; empty before any
// forecast. `oom` says whether an OOM is forecast.
QString forecastBanner(const QVector<LiveRankRow>& rows, bool* oom = nullptr);

class RankTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Rank,
    Status,
    Forecast,
    Headroom,
    Step,
    Allocated,
    Reserved,
    Top,
    Gap,
    Rss,
    Ooms,
    Retries,
    Shapes,
    Bad,
    ColumnCount
  };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(QVector<LiveRankRow> rows);
  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : int(m_rows.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : ColumnCount;
  }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  const LiveRankRow& row(int i) const { return m_rows[i]; }

 private:
  QVector<LiveRankRow> m_rows;
};

}  // namespace oomscope::ui
