#pragma once
// The gap between two recordings, per rank (core/live/client/recording_overlay.h's OverlayRankGap): the
// peaks of A and B and their change, and the OOM events of each. Formats what core derived; Qt::UserRole
// gives each cell's sort key (unknown figures sort last), Qt::ToolTipRole the exact bytes.

#include <QAbstractTableModel>
#include <vector>

#include "core/live/client/recording_overlay.h"

namespace oomscope::ui {

class RecordingGapModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Rank,
    AllocatedA,
    AllocatedB,
    AllocatedChange,
    ReservedA,
    ReservedB,
    ReservedChange,
    OomsA,
    OomsB,
    ColumnCount
  };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<live::OverlayRankGap> rows);
  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : int(m_rows.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : ColumnCount;
  }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<live::OverlayRankGap> m_rows;
};

}  // namespace oomscope::ui
