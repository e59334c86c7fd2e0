#pragma once
// The What-if panel's first failure as the allocator saw it, one figure a row: where (trace entry, time,
// innermost frame), the request and its rounding, the pool and stream, the largest free block the pool kept
// after the retry, the cached free bytes, what the retry released, reserved and allocated at that moment,
// and for a recorded oom entry what CUDA still had free. Empty when the scenario ran without an OOM.

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "core/allocator/replay.h"
#include "core/snapshot/snapshot.h"

namespace oomscope::ui {

class WhatIfOomModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Figure, Value, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  // `snap` names the frames of the failing request; `traceStartUs` (the trace's first time, -1: unknown)
  // makes its time relative. oom empty: no rows.
  void setOom(const std::optional<allocator::OomReport>& oom, std::shared_ptr<const snapshot::Snapshot> snap,
              std::int64_t traceStartUs = -1);
  // One row saying why there is no failure to show.
  void setNone(const QString& why);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString figure, value, tooltip;
  };
  std::vector<Row> m_rows;
};

}  // namespace oomscope::ui
