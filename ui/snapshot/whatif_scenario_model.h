#pragma once
// The What-if panel's table of scenarios (the standard set of `oomscope-cli whatif SNAPSHOT`): the recorded
// run first, then each single setting, with peak reserved and allocated, the reserved memory saved against
// the recorded run and the first allocation that would fail. Every figure is derived by replay; the
// recorded row's tooltip says whether the replay reproduced the recording.

#include <QAbstractTableModel>
#include <memory>

#include "core/allocator/whatif.h"

namespace oomscope::ui {

class WhatIfScenarioModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Capacity, PeakReserved, PeakAllocated, Saved, FirstOom, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setResult(std::shared_ptr<const allocator::WhatIfResult> result);
  const allocator::WhatIfResult* result() const { return m_result.get(); }
  // The scenario of a row: the recorded run at row 0, then result->scenarios.
  const allocator::Scenario* scenario(int row) const;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const allocator::WhatIfResult> m_result;
};

}  // namespace oomscope::ui
