#pragma once
// Table models of a snapshot's pages, fed with immutable core results: the allocations live at the peak,
// the segments of the allocator state at the selected event, and the rows of a diff.

#include <QAbstractTableModel>
#include <memory>

#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_diff.h"
#include "ui/snapshot/snapshot_document.h"

namespace oomscope::ui {

class TopAllocationsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Size, Address, Allocated, Category, Rule, Where, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setDocument(std::shared_ptr<const SnapshotDocument> doc);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // The stack of a row, innermost first, one "file:line in name" per line.
  QString framesText(int row) const;

 private:
  std::shared_ptr<const SnapshotDocument> m_doc;
};

class SegmentStateModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Address, Size, Pool, LiveBlocks, Allocated, Free, LargestFree, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setState(std::shared_ptr<const snapshot::AllocatorState> state);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const snapshot::AllocatorState> m_state;
};

class DiffModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, A, B, Delta, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setDiff(std::shared_ptr<const snapshot::SnapshotDiff> diff);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString section, name;
    qint64 a = 0, b = 0;
    bool count = false;
  };
  std::vector<Row> m_rows;
};

}  // namespace oomscope::ui
