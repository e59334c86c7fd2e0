#pragma once
// The counters of one or two runs at their current steps, one counter per row: column 0 names it, then one
// column per run, then (with two runs) the difference B - A. Stepping only emits dataChanged, so a view keeps
// its scroll position and selection while the user plays a run.
//
// Roles: DisplayRole text, ToolTipRole the exact value and how it is computed, SortRole/ValueRole the raw
// number (qint64 or double), ForegroundRole on the difference: green when B is better, red when worse.

#include <QAbstractTableModel>
#include <QString>
#include <array>
#include <cstdint>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

class SimTotalsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role { ValueRole = Qt::UserRole + 1 };
  enum Row {
    Attempts,
    Retries,
    Wasted,
    Ooms,
    BugsSwallowed,
    Crashes,
    OptimizerSteps,
    DroppedFragments,
    PointsDropped,
    ScenesDropped,
    GradientPoints,
    GradientScenes,
    DiscardedGradients,
    Renormalised,
    SpatialPoints,
    NormBiased,
    NormSmall,
    FloorKept,
    EmptyCache,
    SimTime,
    Overhead,
    RowCount
  };

  explicit SimTotalsModel(QObject* parent = nullptr);

  // b may be null (one run). Resets the model when the set of runs changes.
  void setRuns(RunPtr a, RunPtr b);
  // Moves the cursors; -1 leaves that run's cursor where it is.
  void setSteps(std::int64_t stepA, std::int64_t stepB);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // The raw value of a counter for run 0 (A) or 1 (B) at its cursor; NaN when unknown.
  double value(int row, int run) const;
  // The run that column `column` shows, or -1 for the name and difference columns.
  int runOfColumn(int column) const { return column >= 1 && column <= runCount() ? column - 1 : -1; }
  int runCount() const { return m_runs[1] ? 2 : m_runs[0] ? 1 : 0; }

 private:
  QString format(int row, double v) const;
  QString formatDelta(int row, double d) const;

  std::array<RunPtr, 2> m_runs;
  std::array<std::int64_t, 2> m_steps{0, 0};
};

}  // namespace oomscope::ui
