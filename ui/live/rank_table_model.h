#pragma once
// The Live page's rank table: one row per endpoint with its connection state and latest figures,
// refreshed from a snapshot of the store (setRows), so the view never touches the session. Qt::UserRole
// gives each cell's sort key (a number; unknown figures sort last), so a QSortFilterProxyModel sorts by
// headroom with the rank closest to OOM on top.

#include <QAbstractTableModel>
#include <QVector>

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
};

QVector<LiveRankRow> liveRankRows(const live::Store& store);

class RankTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Rank,
    Status,
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
