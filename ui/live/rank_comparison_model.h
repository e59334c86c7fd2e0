#pragma once
// The Live page's ranks compared as one job: one row per rank with samples, the figures of
// core/live/client/recording_ranks.h (what `report RECORDING` prints), read from a RecordingComparison
// that core built on a worker; the model only formats them. Qt::UserRole gives each cell's sort key (a
// number; unknown figures sort last), Qt::ToolTipRole the exact bytes.

#include <QAbstractTableModel>
#include <memory>

#include "core/live/client/recording_ranks.h"

namespace oomscope::ui {

class RankComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Rank, Host, PeakAllocated, PeakReserved, PeakDriver, Capacity, Tightest, Ooms, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;

  // Null clears the table.
  void setComparison(std::shared_ptr<const live::RecordingComparison> comparison);
  const live::RecordingComparison* comparison() const { return m_comparison.get(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : ColumnCount;
  }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant text(const live::RecordingRankFigures& f, int column) const;
  QVariant sortKey(const live::RecordingRankFigures& f, int column) const;
  std::shared_ptr<const live::RecordingComparison> m_comparison;
};

// The verdict line above the table: "verdict: rank 3 (oom)" and its sentences, as `report` prints them.
QString comparisonVerdictText(const live::RecordingComparison& c);
// The imbalance line: "imbalance [derived]: peak allocated max / median 3.21 (...); peak reserved ...".
QString comparisonImbalanceText(const live::RecordingComparison& c);

}  // namespace oomscope::ui
